"""A simulated campaign schedule and its independent validator (spec §9.4).

:func:`validate` recomputes everything from the workload and the job start times only; it
does not trust any quantity the policy reported. It checks: every job starts once at a
finite time; busy processors ``<= m`` at all times (sweep, ends before starts at equal
times); no preemption (``C = s + p`` by construction); each job starts at or after its
campaign's release ``t_i`` and after its predecessors end; the release rule of the
campaign (closed loop: ``t_i = C_{i-1} + think_i``, first at 0; open loop:
``t_i = max(submit_i, C_{i-1})``), so ``t_{i+1} >= C_i`` for every user.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lpsched.campaigns.instance import Workload
from lpsched.errors import InvalidScheduleError

#: relative tolerance of the validator's time comparisons (times up to ~1e8 s)
TIME_TOL = 1e-9


@dataclass(frozen=True, eq=False)
class CampaignRun:
    """The result of one policy on one workload.

    Attributes
    ----------
    policy : str
    workload : Workload
    start : ndarray
        Start of each job (``C = start + p``, no preemption).
    release : ndarray
        ``t_i``: the time each campaign was submitted to the scheduler.
    info : dict
        Policy-specific data (FairCamp deadlines ``d``; OStrich virtual tags, V and the
        idle areas; counters), JSON-ready.
    events : int
        Engine events processed.
    """

    policy: str
    workload: Workload
    start: np.ndarray
    release: np.ndarray
    info: dict[str, Any] = field(default_factory=dict)
    events: int = 0

    @property
    def end(self) -> np.ndarray:
        """End of each job, ``start + p`` (no preemption)."""
        return self.start + self.workload.p

    @property
    def completion(self) -> np.ndarray:
        """``C_i^u = max_j C_{i,j}^u`` per campaign."""
        return np.maximum.reduceat(self.end, self.workload.offsets[:-1])

    @property
    def first_start(self) -> np.ndarray:
        """``s_i^u = min_j s_{i,j}^u`` per campaign."""
        return np.minimum.reduceat(self.start, self.workload.offsets[:-1])

    def to_frame(self, per: str = "job") -> Any:
        """The run as a pandas DataFrame (``pip install 'lpsched[pandas]'`` when pandas is
        missing).

        Parameters
        ----------
        per : {"job", "campaign", "run"}
            ``"job"`` (default): one row per job, in the workload's order (campaign by
            campaign); ``"campaign"``: one row per campaign; ``"run"``: one row, the run's
            metrics.

        Returns
        -------
        pandas.DataFrame
            Per job: ``job`` (int, global index), ``campaign`` (int), ``user`` (int),
            ``p`` (s, length), ``q`` (int, processors), ``release`` (s, ``t_i``: its
            campaign's submission to the scheduler), ``start``, ``end`` (s) and
            ``stretch`` (1, (S3) ``(C_ij − t_i)/p_ij``, seed 002 [L763]).
            Per campaign: ``campaign``, ``user``, ``piece`` (int, trace piece), ``jobs``
            (int), ``work`` (processor·s, ``Σ p·q``), ``release`` (s, ``t_i``),
            ``first_start`` (s, ``s_i``), ``completion`` (s, ``C_i``), ``flow`` (s,
            ``Δ_i = C_i − t_i``), ``lower_bound`` (s, ``l_i = max(W_i/m, p_max)``) and
            ``stretch`` (1, (S1) ``Δ_i / l_i``, [L782];
            :func:`lpsched.campaigns.metrics.campaign_stretch`).
            Per run: the fields of ``lpsched campaigns run --json``
            (:func:`lpsched.campaigns.metrics.summary`: ``policy``, ``valid``, the
            sizes, the max and mean of each stretch, the shares of campaigns of stretch 1
            and below 1.5, ``utilisation``, ``makespan`` (s), ``events`` and the scalar
            ``info`` fields) but ``seconds``, the wall time, which the run does not keep;
            ``valid`` is :func:`validate`'s verdict.

        Raises
        ------
        ValueError
            ``per`` is none of ``"job"``, ``"campaign"`` and ``"run"``.

        Examples
        --------
        >>> from lpsched.campaigns.instance import make_workload
        >>> from lpsched.campaigns.policies import policy_factory
        >>> from lpsched.campaigns.simulator import simulate
        >>> w = make_workload(1, [{"user": 0, "submit": 0.0, "jobs": [{"p": 2.0, "q": 1}] * 2},
        ...                       {"user": 1, "submit": 1.0, "jobs": [{"p": 1.0, "q": 1}]}])
        >>> run = simulate(w, policy_factory("fcfs", parallel=False))
        >>> run.to_frame()[["job", "campaign", "user", "start", "end", "stretch"]]
           job  campaign  user  start  end  stretch
        0    0         0     0    0.0  2.0      1.0
        1    1         0     0    2.0  4.0      2.0
        2    2         1     1    4.0  5.0      4.0
        >>> run.to_frame(per="campaign")[["campaign", "release", "completion", "stretch"]]
           campaign  release  completion  stretch
        0         0      0.0         4.0      1.0
        1         1      1.0         5.0      4.0
        >>> run.to_frame(per="run")[["policy", "valid", "max_campaign_stretch", "makespan"]]
          policy  valid  max_campaign_stretch  makespan
        0   fcfs   True                   4.0       5.0
        """
        from lpsched.core.frames import frame

        w = self.workload
        release = np.asarray(self.release, float)
        if per == "job":
            camp = w.camp
            end = self.end
            return frame({"job": np.arange(w.jobs), "campaign": camp, "user": w.user[camp],
                          "p": w.p, "q": w.q, "release": release[camp], "start": self.start,
                          "end": end, "stretch": (end - release[camp]) / w.p},
                         "CampaignRun.to_frame()")
        if per == "run":
            return self._run_frame()
        if per != "campaign":
            raise ValueError(f"per={per!r}: CampaignRun.to_frame() gives one row per 'job', "
                             "per 'campaign' or per 'run'")
        completion = self.completion
        return frame({"campaign": np.arange(w.campaigns), "user": w.user, "piece": w.piece,
                      "jobs": np.diff(w.offsets), "work": w.work, "release": release,
                      "first_start": self.first_start, "completion": completion,
                      "flow": completion - release, "lower_bound": w.lower_bound,
                      "stretch": (completion - release) / w.lower_bound},
                     "CampaignRun.to_frame(per='campaign')")

    def _run_frame(self) -> Any:
        """:meth:`to_frame`'s one row per run."""
        from lpsched.campaigns.metrics import summary
        from lpsched.core.frames import frame

        try:
            validate(self)
            valid = True
        except InvalidScheduleError:
            valid = False
        row = summary(self, float("nan"), valid)
        del row["seconds"]  # the caller's wall time: not the run's to tell
        return frame({k: [v] for k, v in row.items()}, "CampaignRun.to_frame(per='run')")


def _tol(scale: float) -> float:
    return TIME_TOL * max(1.0, abs(scale))


def validate(run: CampaignRun) -> None:
    """Raise :class:`InvalidScheduleError` on the first broken rule (module doc).

    Independent of the simulator. O(n log n).

    Parameters
    ----------
    run : CampaignRun
        The run to check: its workload, start times and campaign releases.

    Raises
    ------
    InvalidScheduleError
        At the first broken rule (its name, a message and the job when there is one).
    """
    w = run.workload
    s = np.asarray(run.start, dtype=float)
    if s.shape != w.p.shape or not np.all(np.isfinite(s)) or np.any(s < 0):
        bad = np.flatnonzero(~np.isfinite(s) | (s < 0)) if s.shape == w.p.shape else [0]
        raise InvalidScheduleError("started", "every job must start once at a finite time "
                                   ">= 0", int(bad[0]) if len(bad) else None)
    end = s + w.p
    tol = _tol(float(end.max()))
    pieces = np.unique(w.piece)
    if pieces.size == 1:
        _check_capacity(w.q, w.processors, s, end)
    else:  # each trace piece is replayed on its own machine (spec §5.7)
        piece = w.piece[w.camp]
        for k in pieces.tolist():
            sel = piece == k
            _check_capacity(w.q[sel], w.processors, s[sel], end[sel])
    camp = w.camp
    early = s < run.release[camp] - tol
    if early.any():
        j = int(np.flatnonzero(early)[0])
        raise InvalidScheduleError("release", f"job {j} starts at {s[j]} before its campaign "
                                   f"{camp[j]} is submitted at {run.release[camp[j]]}", j)
    if w.dep_src.size:
        late = s[w.dep_dst] < end[w.dep_src] - tol
        if late.any():
            e = int(np.flatnonzero(late)[0])
            raise InvalidScheduleError("precedence", f"job {w.dep_dst[e]} starts before its "
                                       f"predecessor {w.dep_src[e]} ends", int(w.dep_dst[e]))
    _check_releases(w, run.release, run.completion, tol)
    check_invariants(run)


def check_invariants(run: CampaignRun) -> None:
    """The policy invariants of spec §9.4 that involve the policy's own state, checked on
    every run (by :func:`validate` and, per trace piece, by the simulator) against R.

    * OStrich with the start gate (``info["gate"]``): every job starts at or after the
      time its campaign became eligible (``s >= s̃``, V reached the start tag);
    * OStrich's virtual schedule (``info["resize_mode"]``; ``info["resize"]`` alone means
      ``"literal"``): the area V served over the periods with an active user equals the
      capacity its mode gives V, recomputed from R's starts (:func:`virtual_capacity_area`):
      ``"literal"``: R's busy area (Lemma 6.2, V's idle area equals R's, B31);
      ``"fragmentation_only"``: R's busy area while a released job of an eligible campaign
      waits, ``m`` otherwise (Lemma 6.2 then holds only over the periods with a waiting
      job); ``"none"``: ``m`` throughout (V idles only with no active user; Lemma 6.2 does
      not hold, Lemma 5.1's bound is a property test, not a per-run check);
    * FairCamp in blocks (``info["rho_lengths"]``) in the setting of Prop 4.1 (closed loop,
      think 0): every campaign completes by its Eq. 4.1 deadline, ``C <= d``.

    A quantity absent from ``run.info`` (another policy, or pieces merged) is not checked.

    Parameters
    ----------
    run : CampaignRun
        The run to check.

    Raises
    ------
    InvalidScheduleError
        On the first broken invariant (a finding, never silenced).
    """
    w, info = run.workload, run.info
    tol = _tol(float(run.end.max()))
    eligible = info.get("eligible_at")
    if info.get("gate") and isinstance(eligible, np.ndarray) and eligible.size == w.campaigns:
        early = ~(run.start >= eligible[w.camp] - tol)
        if early.any():
            j = int(np.flatnonzero(early)[0])
            raise InvalidScheduleError("start-gate", f"job {j} starts at {run.start[j]} "
                                       f"before its campaign {w.camp[j]} is eligible (s̃ = "
                                       f"{eligible[w.camp[j]]})", j)
    _check_virtual_area(run)
    deadlines = info.get("deadlines")
    ch4 = bool(np.all(np.isnan(w.submit)) and np.all(w.think == 0))
    if "rho_lengths" in info and ch4 and isinstance(deadlines, np.ndarray):
        late = run.completion > deadlines * (1 + 1e-12) + tol
        if late.any():
            c = int(np.flatnonzero(late)[0])
            raise InvalidScheduleError("deadline", f"FairCamp campaign {c} completes at "
                                       f"{run.completion[c]} after its deadline "
                                       f"{deadlines[c]} (Prop 4.1)")


#: what V's served area must equal, per OStrich ``resize_mode`` (:func:`check_invariants`)
VIRTUAL_AREA_RULE = {"literal": "R's busy area (Lemma 6.2)",
                     "fragmentation_only": "R's busy area while an eligible job waits, "
                                           "m otherwise",
                     "none": "m per unit of time"}


def _check_virtual_area(run: CampaignRun) -> None:
    info = run.info
    intervals = info.get("active_intervals")
    mode = info.get("resize_mode", "literal" if info.get("resize") else None)
    if mode not in VIRTUAL_AREA_RULE or not isinstance(intervals, np.ndarray):
        return
    w = run.workload
    eligible = info.get("eligible_at")
    if mode == "fragmentation_only" and not (isinstance(eligible, np.ndarray)
                                             and eligible.size == w.campaigns):
        return
    avail = job_available(run, eligible if mode == "fragmentation_only" else None)
    expected = virtual_capacity_area(w.q, run.start, run.end, avail, intervals,
                                     w.processors, mode)
    v_area = float(info["virtual_area"])
    if abs(v_area - expected) > 1e-7 * max(1.0, expected):
        raise InvalidScheduleError("virtual-area", f"V executed area {v_area} over the active "
                                   f"periods, its capacity (resize_mode {mode!r}: "
                                   f"{VIRTUAL_AREA_RULE[mode]}) gives {expected}")


def job_available(run: CampaignRun, eligible_at: np.ndarray | None = None) -> np.ndarray:
    """When each job could start: its campaign's release (or, given, the time the campaign became
    eligible in V) and its predecessors' ends, whichever is last.

    O(n + edges).

    Parameters
    ----------
    run : CampaignRun
        A run: its releases and job end times are read.
    eligible_at : numpy.ndarray or None
        Shape ``(campaigns,)``: when each campaign became eligible in OStrich's virtual
        schedule V; ``None`` (default): the releases alone.

    Returns
    -------
    numpy.ndarray
        Shape ``(n,)``: the earliest start of each job (s).
    """
    w = run.workload
    base = run.release if eligible_at is None else np.maximum(eligible_at, run.release)
    avail = np.array(base[w.camp], dtype=float)
    if w.dep_src.size:
        np.maximum.at(avail, w.dep_dst, run.end[w.dep_src])
    return avail


def virtual_capacity_area(q: np.ndarray, start: np.ndarray, end: np.ndarray,
                          avail: np.ndarray, intervals: np.ndarray, m: int,
                          mode: str) -> float:
    """The area V serves over the union of disjoint ``intervals`` under ``mode``, recomputed
    from R's schedule.

    The intervals (rows ``[a, b)``) are the periods with an active user; ``mode`` is a rule
    of :data:`VIRTUAL_AREA_RULE`. On each interval between consecutive event times R's state
    after the events (busy processors, jobs with ``avail <= t < start`` waiting) is constant.
    One sweep, O((n + I) log(n + I)).

    Parameters
    ----------
    q : numpy.ndarray
        Each job's processor count, shape ``(n,)``.
    start : numpy.ndarray
        Each job's start time (s), shape ``(n,)``.
    end : numpy.ndarray
        Each job's end time (s), shape ``(n,)``.
    avail : numpy.ndarray
        When each job became available (s), shape ``(n,)`` (:func:`job_available`).
    intervals : numpy.ndarray
        Shape ``(I, 2)``: disjoint periods ``[a, b)`` (s).
    m : int
        The machine's processors.
    mode : str
        A key of :data:`VIRTUAL_AREA_RULE`: ``"literal"``, ``"fragmentation_only"`` or
        ``"none"`` (any other value acts as ``"fragmentation_only"``).

    Returns
    -------
    float
        The area, in processor-seconds.

    Examples
    --------
    >>> q, s, e = np.array([1, 2]), np.array([0.0, 2.0]), np.array([4.0, 3.0])
    >>> avail, iv = np.array([0.0, 1.0]), np.array([[0.0, 5.0]])
    >>> [virtual_capacity_area(q, s, e, avail, iv, 3, mode)  # job 1 waits during [1, 2)
    ...  for mode in ("literal", "fragmentation_only", "none")]
    [6.0, 13.0, 15.0]
    """
    iv = np.asarray(intervals, dtype=float).reshape(-1, 2)
    t = np.unique(np.concatenate((start, end, avail, iv.ravel())))
    if t.size < 2:
        return 0.0
    left = t[:-1]
    s_order = np.argsort(start, kind="stable")
    e_order = np.argsort(end, kind="stable")
    q_start = np.concatenate(([0.0], np.cumsum(q[s_order], dtype=float)))
    q_end = np.concatenate(([0.0], np.cumsum(q[e_order], dtype=float)))
    busy = (q_start[np.searchsorted(start[s_order], left, side="right")]
            - q_end[np.searchsorted(end[e_order], left, side="right")])
    active = (np.searchsorted(np.sort(iv[:, 0]), left, side="right")
              - np.searchsorted(np.sort(iv[:, 1]), left, side="right")) > 0
    if mode == "literal":
        cap = busy
    elif mode == "none":
        cap = np.full(left.size, float(m))
    else:
        waiting = (np.searchsorted(np.sort(avail), left, side="right")
                   - np.searchsorted(start[s_order], left, side="right")) > 0
        cap = np.where(waiting, busy, float(m))
    return float(np.sum(np.diff(t) * cap * active))


def busy_area_inside(q: np.ndarray, start: np.ndarray, end: np.ndarray,
                     intervals: np.ndarray) -> float:
    """Busy area ``Σ q · |[s, e) ∩ I|`` of jobs over the union of disjoint ``intervals`` (rows ``[a,
    b)``), by one sweep.

    O((n + I) log(n + I)).

    >>> busy_area_inside(np.array([2]), np.array([0.0]), np.array([4.0]),
    ...                  np.array([[1.0, 2.0], [3.0, 9.0]]))
    4.0

    Parameters
    ----------
    q : numpy.ndarray
        Each job's processor count, shape ``(n,)``.
    start : numpy.ndarray
        Each job's start time (s), shape ``(n,)``.
    end : numpy.ndarray
        Each job's end time (s), shape ``(n,)``.
    intervals : numpy.ndarray
        Shape ``(I, 2)``: disjoint periods ``[a, b)`` (s).

    Returns
    -------
    float
        The busy area, in processor-seconds.
    """
    iv = np.asarray(intervals, dtype=float).reshape(-1, 2)
    times = np.concatenate((start, end, iv[:, 0], iv[:, 1]))
    d_busy = np.concatenate((q, -q, np.zeros(2 * len(iv)))).astype(float)
    d_act = np.concatenate((np.zeros(2 * start.size), np.ones(len(iv)), -np.ones(len(iv))))
    order = np.argsort(times, kind="stable")
    t = times[order]
    busy = np.cumsum(d_busy[order])[:-1]
    active = np.cumsum(d_act[order])[:-1] > 0
    return float(np.sum(np.diff(t) * busy * active))


def _check_capacity(q: np.ndarray, m: int, s: np.ndarray, end: np.ndarray) -> None:
    times = np.concatenate((end, s))
    delta = np.concatenate((-q, q))
    # ends first at ties: they come first in ``times`` and the sort is stable
    order = np.argsort(times, kind="stable")
    busy = np.cumsum(delta[order])
    if busy.max(initial=0) > m:
        i = int(np.argmax(busy > m))
        raise InvalidScheduleError("capacity", f"{int(busy[i])} processors busy at time "
                                   f"{times[order][i]} > m = {m}")


def _check_releases(w: Workload, release: np.ndarray, completion: np.ndarray,
                    tol: float) -> None:
    prev = previous_campaign(w)
    prev_c = np.where(prev >= 0, completion[np.maximum(prev, 0)], 0.0)
    closed = np.isnan(w.submit)
    expected = np.where(closed, np.where(prev >= 0, prev_c + w.think, 0.0),
                        np.maximum(np.nan_to_num(w.submit), prev_c))
    bad = np.abs(release - expected) > tol
    if bad.any():
        c = int(np.flatnonzero(bad)[0])
        raise InvalidScheduleError("submission", f"campaign {c} is submitted at "
                                   f"{release[c]}, its rule gives {expected[c]} (previous "
                                   "campaign of the user completed at "
                                   f"{prev_c[c] if prev[c] >= 0 else 'none'})")


def previous_campaign(w: Workload) -> np.ndarray:
    """Index of each campaign's predecessor of the same user and trace piece (-1 for the first).

    O(n log n).

    Parameters
    ----------
    w : Workload
        The workload (its campaigns' users and pieces).

    Returns
    -------
    numpy.ndarray
        int64, shape ``(campaigns,)``: the index of the previous campaign of the same user
        and piece (campaign order), -1 for the first.
    """
    key = w.user * (int(w.piece.max()) + 1) + w.piece
    order = np.lexsort((np.arange(w.campaigns), key))
    prev = np.full(w.campaigns, -1, dtype=np.int64)
    same = key[order][1:] == key[order][:-1]
    prev[order[1:][same]] = order[:-1][same]
    return prev


def original_run(w: Workload) -> CampaignRun:
    """The original log's schedule as a baseline (spec A15).

    Each job starts at its logged start ``start0``; the campaign's submission is its first
    job's (clipped) submit time.

    Parameters
    ----------
    w : Workload
        An extracted workload whose ``job_data`` holds ``start0``.

    Returns
    -------
    CampaignRun
        Policy ``"original"``.
    """
    start = w.job_data["start0"]
    release = np.where(np.isnan(w.submit), 0.0, w.submit)
    return CampaignRun("original", w, start, release)
