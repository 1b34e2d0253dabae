"""The three stretch notions of seed 002, kept apart (spec §1.2):

* (S1) campaign stretch ``D_i^u = Δ_i^u / l_i^u`` with ``l = max(W/m, p_max)`` [L782]
  (per-campaign ``p_max``, ``W`` area; spec A1);
* (S2) per-user cumulative ratio ``ΣΔ^u / Σ_i Δ_i^u(ζ)`` against the ρ-schedule lengths
  (LPT makespans of each campaign alone, spec A2) for sequential jobs, against ``Σ l`` for
  parallel ones;
* (S3) job stretch ``(C_ij - t_ij) / p_ij``, ``t_ij`` the campaign's submission [L763].
"""

from __future__ import annotations

from typing import Any

import numpy as np

from lpsched.campaigns.instance import Workload
from lpsched.campaigns.offline import lpt
from lpsched.campaigns.schedule import CampaignRun

#: a campaign stretch within this of 1 counts as optimal (spec A15)
OPTIMAL_EPS = 1e-9


def campaign_stretch(run: CampaignRun) -> np.ndarray:
    """(S1) ``(C_i - t_i) / max(W_i/m, p_max,i)`` per campaign. O(n)."""
    return (run.completion - run.release) / run.workload.lower_bound


def campaign_stretch_from_log(run: CampaignRun) -> np.ndarray:
    """(S1) measured from the log's submission time instead of the effective release:
    ``(C_i - submit_i) / l_i`` for open-loop campaigns (``submit_i <= t_i =
    max(submit_i, C_{i-1})``, decision 90), ``campaign_stretch`` for closed-loop ones.
    O(n).

    >>> from lpsched.campaigns.instance import make_workload
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
    """``Δ(ζ_i^u)``: the LPT makespan of each campaign alone on all m processors (the
    denominators of S2 for sequential jobs); ``l`` for parallel workloads. O(n log n)."""
    if w.parallel:
        return w.lower_bound
    return np.array([lpt(w.p[w.offsets[c]:w.offsets[c + 1]], w.processors)[1]
                     for c in range(w.campaigns)])


def user_stretch(run: CampaignRun, denominators: np.ndarray | None = None) -> np.ndarray:
    """(S2) ``ΣΔ^u / Σ_i den_i`` per user (``nan`` for users without campaigns). O(n)."""
    w = run.workload
    den = rho_lengths(w) if denominators is None else denominators
    flow = np.bincount(w.user, weights=run.completion - run.release, minlength=w.users)
    base = np.bincount(w.user, weights=den, minlength=w.users)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(base > 0, flow / np.where(base > 0, base, 1.0), np.nan)


def job_stretch(run: CampaignRun) -> np.ndarray:
    """(S3) ``(C_ij - t_i) / p_ij`` per job. O(n)."""
    w = run.workload
    return (run.end - run.release[w.camp]) / w.p


def utilisation(run: CampaignRun) -> float:
    """Executed area over ``m`` times the span from the first submission to the last
    completion, summed over the trace pieces (each piece on its own machine). O(n)."""
    w = run.workload
    span = 0.0
    comp = run.completion
    for k in np.unique(w.piece).tolist():
        sel = w.piece == k
        span += float(comp[sel].max() - run.release[sel].min())
    area = float(np.sum(w.p * w.q))
    return area / (w.processors * span) if span > 0 else 1.0


def summary(run: CampaignRun, seconds: float, valid: bool) -> dict[str, Any]:
    """The ``lpsched campaigns run --json`` object (issue 11), each stretch named."""
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


def original_run(w: Workload) -> CampaignRun:
    """The original log's schedule as a baseline (spec A15): each job starts at its logged
    start ``start0``; the campaign's submission is its first job's (clipped) submit time."""
    start = w.job_data["start0"]
    release = np.where(np.isnan(w.submit), 0.0, w.submit)
    return CampaignRun("original", w, start, release)
