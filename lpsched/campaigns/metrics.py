"""The three stretch notions of seed 002, kept apart (spec §1.2):

* (S1) campaign stretch ``D_i^u = Δ_i^u / l_i^u`` with ``l = max(W/m, p_max)`` [L782]
  (per-campaign ``p_max``, ``W`` area; spec A1);
* (S2) per-user cumulative ratio ``ΣΔ^u / Σ_i Δ_i^u(ζ)`` against the ρ-schedule lengths
  (LPT makespans of each campaign alone, spec A2) for sequential jobs, against ``Σ l`` for
  parallel ones;
* (S3) job stretch ``(C_ij - t_ij) / p_ij``, ``t_ij`` the campaign's submission [L763].
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from lpsched.campaigns.instance import Workload
from lpsched.campaigns.offline import lpt
from lpsched.errors import InvalidInstanceError

#: a campaign stretch within this of 1 counts as optimal (spec A15)
OPTIMAL_EPS = 1e-9


class CampaignRunLike(Protocol):
    """What the measures of this module read of a run.

    :class:`lpsched.campaigns.schedule.CampaignRun`, which every policy returns, is one;
    this module does not import it, so that the run's per-run frame can call
    :func:`summary`.
    """

    @property
    def policy(self) -> str:
        """The policy's name."""

    @property
    def workload(self) -> Workload:
        """The workload run."""

    @property
    def release(self) -> np.ndarray:
        """``t_i``, each campaign's submission to the scheduler (s)."""

    @property
    def info(self) -> dict[str, Any]:
        """The policy's own data, JSON-ready."""

    @property
    def events(self) -> int:
        """Engine events processed."""

    @property
    def end(self) -> np.ndarray:
        """Each job's end (s)."""

    @property
    def completion(self) -> np.ndarray:
        """``C_i``, each campaign's completion (s)."""


def campaign_stretch(run: CampaignRunLike) -> np.ndarray:
    """(S1) ``(C_i - t_i) / max(W_i/m, p_max,i)`` per campaign.

    O(n).

    Parameters
    ----------
    run : CampaignRun
        A policy's run: its workload, job start times and campaign releases.

    Returns
    -------
    numpy.ndarray
        Shape ``(campaigns,)``: each campaign's flow over its lower bound ``l_i``.
    """
    return (run.completion - run.release) / run.workload.lower_bound


def campaign_stretch_from_log(run: CampaignRunLike) -> np.ndarray:
    """(S1) measured from the log's submission time instead of the effective release.

    ``(C_i - submit_i) / l_i`` for open-loop campaigns (``submit_i <= t_i = max(submit_i,
    C_{i-1})``), :func:`campaign_stretch` for closed-loop ones. O(n).

    Parameters
    ----------
    run : CampaignRun
        A policy's run: its workload, job start times and campaign releases.

    Returns
    -------
    numpy.ndarray
        Shape ``(campaigns,)``.

    Notes
    -----
    The effective release is decision 90's submission rule.

    Examples
    --------
    >>> from lpsched.campaigns.instance import make_workload
    >>> from lpsched.campaigns.schedule import CampaignRun
    >>> w = make_workload(1, [{"user": 0, "submit": 0.0, "jobs": [{"p": 2.0}]},
    ...                       {"user": 0, "submit": 1.0, "jobs": [{"p": 2.0}]}])
    >>> run = CampaignRun("x", w, np.array([0.0, 2.0]), np.array([0.0, 2.0]))
    >>> campaign_stretch(run).tolist(), campaign_stretch_from_log(run).tolist()
    ([1.0, 1.0], [1.0, 1.5])
    """
    w = run.workload
    submitted = np.where(np.isnan(w.submit), run.release, w.submit)
    return (run.completion - submitted) / w.lower_bound


def rho_lengths(w: Workload) -> np.ndarray:
    """``Δ(ζ_i^u)``: the LPT makespan of each campaign alone on all m processors (the denominators
    of S2 for sequential jobs); ``l`` for parallel workloads.

    O(n log n).

    Parameters
    ----------
    w : Workload
        The workload.

    Returns
    -------
    numpy.ndarray
        Shape ``(campaigns,)``, in seconds.
    """
    if w.parallel:
        return w.lower_bound
    return np.array([lpt(w.p[w.offsets[c]:w.offsets[c + 1]], w.processors)[1]
                     for c in range(w.campaigns)])


def user_stretch(run: CampaignRunLike, denominators: np.ndarray | None = None) -> np.ndarray:
    """(S2) ``ΣΔ^u / Σ_i den_i`` per user (``nan`` for users without campaigns).

    O(n).

    Parameters
    ----------
    run : CampaignRun
        A policy's run: its workload, job start times and campaign releases.
    denominators : numpy.ndarray or None
        Each campaign's reference length (s), shape ``(campaigns,)``; ``None`` (default):
        :func:`rho_lengths`.

    Returns
    -------
    numpy.ndarray
        Shape ``(users,)``: each user's total campaign flow over its total reference.
    """
    w = run.workload
    den = rho_lengths(w) if denominators is None else denominators
    flow = np.bincount(w.user, weights=run.completion - run.release, minlength=w.users)
    base = np.bincount(w.user, weights=den, minlength=w.users)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(base > 0, flow / np.where(base > 0, base, 1.0), np.nan)


def job_stretch(run: CampaignRunLike) -> np.ndarray:
    """(S3) ``(C_ij - t_i) / p_ij`` per job.

    O(n).

    Parameters
    ----------
    run : CampaignRun
        A policy's run: its workload, job start times and campaign releases.

    Returns
    -------
    numpy.ndarray
        Shape ``(jobs,)``.
    """
    w = run.workload
    return (run.end - run.release[w.camp]) / w.p


def utilisation(run: CampaignRunLike) -> float:
    """Executed area over ``m`` times the span from the first submission to the last completion,
    summed over the trace pieces (each piece on its own machine).

    O(n).

    Parameters
    ----------
    run : CampaignRun
        A policy's run: its workload, job start times and campaign releases.

    Returns
    -------
    float
        In [0, 1] for a valid schedule; 1.0 for an empty span.
    """
    w = run.workload
    span = 0.0
    comp = run.completion
    for k in np.unique(w.piece).tolist():
        sel = w.piece == k
        span += float(comp[sel].max() - run.release[sel].min())
    area = float(np.sum(w.p * w.q))
    return area / (w.processors * span) if span > 0 else 1.0


def utilisation_series(q: np.ndarray, start: np.ndarray, end: np.ndarray, m: int,
                       t0: float, t1: float, width: float) -> np.ndarray:
    """Utilisation per time bin (seed 002 Figs. 5.7-5.11): the busy area of the jobs inside each
    bin over the bin's capacity.

    The jobs run over ``[start, end)`` on ``q`` processors each; the bins are ``[t0 + i w, t0
    + (i+1) w)`` of ``[t0, t1)``, each over ``m · w`` (the last bin may be shorter: its own
    length). Exact (the cumulative busy area is piecewise linear); O((n + bins) log n).

    Parameters
    ----------
    q : numpy.ndarray
        Each job's processors, shape ``(n,)``.
    start : numpy.ndarray
        Each job's start (s), shape ``(n,)``.
    end : numpy.ndarray
        Each job's end (s), shape ``(n,)``.
    m : int
        The machine's processors.
    t0 : float
        The start of the window (s).
    t1 : float
        The end of the window (s), after ``t0``.
    width : float
        The bin width (s), > 0 (3600 for hourly bins).

    Returns
    -------
    numpy.ndarray
        One utilisation per bin, in [0, 1] for a valid schedule.

    Raises
    ------
    InvalidInstanceError
        A window that is not finite, empty, or a width <= 0.

    Examples
    --------
    >>> utilisation_series(np.array([2, 1]), np.array([0.0, 5.0]), np.array([15.0, 30.0]),
    ...                    4, 0.0, 30.0, 10.0).tolist()
    [0.625, 0.5, 0.25]
    """
    if not (np.isfinite(t0) and np.isfinite(t1) and t1 > t0 and width > 0):
        raise InvalidInstanceError("window", (t0, t1, width), "t0 < t1 finite, width > 0")
    edges = np.append(np.arange(t0, t1, width), t1)
    qf = np.asarray(q, dtype=float)
    area = _busy_area_until(qf, start - t0, end - t0, edges - t0)
    return np.diff(area) / (m * np.diff(edges))


def _busy_area_until(q: np.ndarray, s: np.ndarray, e: np.ndarray, t: np.ndarray
                     ) -> np.ndarray:
    """``A(t) = Σ q (min(t, e) - min(t, s))`` at each ``t`` (sorted), by prefix sums:
    ``Σ_{s <= t} q (t - s) - Σ_{e <= t} q (t - e)``. O((n + len(t)) log n)."""
    out = np.zeros(t.size)
    for times, sign in ((s, 1.0), (e, -1.0)):
        order = np.argsort(times, kind="stable")
        ts, qs = times[order], q[order]
        cq = np.concatenate(([0.0], np.cumsum(qs)))
        cqt = np.concatenate(([0.0], np.cumsum(qs * ts)))
        k = np.searchsorted(ts, t, side="right")
        out += sign * (t * cq[k] - cqt[k])
    return out


def summary(run: CampaignRunLike, seconds: float, valid: bool) -> dict[str, Any]:
    """The ``lpsched campaigns run --json`` object, each stretch named.

    Parameters
    ----------
    run : CampaignRun
        A policy's run: its workload, job start times and campaign releases.
    seconds : float
        The wall time the simulation took, reported as is.
    valid : bool
        Whether the schedule passed :func:`lpsched.campaigns.schedule.validate`.

    Returns
    -------
    dict
        ``policy``, ``valid``, sizes, the max and mean of each stretch (S1, S2, S3), the
        shares of campaigns of stretch 1 and below 1.5, ``utilisation``, ``makespan``,
        ``events``, ``seconds`` and the run's scalar ``info`` fields.
    """
    d1 = campaign_stretch(run)
    d2 = user_stretch(run)
    d3 = job_stretch(run)
    w = run.workload
    out: dict[str, Any] = {
        "policy": run.policy, "valid": valid, "processors": w.processors,
        "campaigns": w.campaigns, "users": int(np.unique(w.user).size), "jobs": w.jobs,
        "pieces": int(np.unique(w.piece).size),
        "max_campaign_stretch": float(d1.max()), "mean_campaign_stretch": float(d1.mean()),
        "share_stretch_1": float(np.mean(d1 <= 1 + OPTIMAL_EPS)),
        "share_stretch_below_1_5": float(np.mean(d1 < 1.5)),
        "max_user_stretch": float(np.nanmax(d2)), "mean_user_stretch": float(np.nanmean(d2)),
        "user_stretch_denominator": "sum of l" if w.parallel else "sum of LPT makespans",
        "max_job_stretch": float(d3.max()), "mean_job_stretch": float(d3.mean()),
        "utilisation": utilisation(run), "makespan": float(run.end.max()),
        "events": run.events, "seconds": seconds}
    out.update({k: v for k, v in run.info.items() if np.isscalar(v)})
    return out
