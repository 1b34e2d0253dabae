"""The thesis's worked examples (seed 002 Figs. 4.1, 4.2, 5.1, 5.3 and 5.4) rebuilt from its
text and computed with the family's own code: the values a reimplementation can check.

* Fig. 4.1 [002 L967-L971]: FairCamp's deadlines ``d_i = kΔ_i + d_{i-1}`` with k = 2, user
  1's campaigns of ρ-length 5 and 3, user 2's of 3, 3 and 10 (seed: 10, 16 and 6, 12, 32).
  Each campaign is one job of that length on one processor, so its LPT length is the
  text's Δ; the seed does not give m.
* Fig. 4.2 [002 L977]: the block FairCamp schedule of that example: campaigns in Earliest
  Deadline First order, every one before its deadline (the chart's times are not in the
  text).
* Fig. 5.1 [002 L1188-L1201]: OStrich's virtual schedule on m = 6. The text prints the
  virtual completions, not the campaigns' loads; the loads 48, 18, 10, 8 and 10 are read
  back from five of the printed values (spec B18), so only the re-shared tags of users 1
  and 2 when user 3 joins at t = 2 (23 and 8) are a check; the text's ``s̃_2^3 = 8``
  [002 L1197] contradicts its ``C̃_1^3 = 7`` [002 L1193] (Eq. 5.2 gives 7, spec A18).
* Figs. 5.3-5.4 [002 L1306-L1312, L1322]: MAX detection on seven jobs of one user with a
  linker (job 6) and the campaign's dependency DAG; the figure's times are not in the
  text, so the jobs are laid out as the text describes them (:data:`MAX_JOBS`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lpsched.campaigns.dag import dependency_edges
from lpsched.campaigns.extract import detect
from lpsched.campaigns.faircamp import faircamp
from lpsched.campaigns.instance import Workload, make_workload
from lpsched.campaigns.ostrich import VirtualClock

__all__ = ["FIG41_LENGTHS", "FIG51_LOADS", "MAX_JOBS", "FairCampExample", "MaxExample",
           "OStrichExample", "faircamp_example", "max_example", "ostrich_example"]

#: Fig. 4.1's campaign lengths Δ by user (users 1 and 2 of the text), k = 2 [002 L967-L971]
FIG41_LENGTHS: dict[int, tuple[float, ...]] = {1: (5.0, 3.0), 2: (3.0, 3.0, 10.0)}
#: Fig. 5.1's campaigns in submission order: (time, user, load), the loads read back from
#: the printed virtual completions (spec B18); m = 6 [002 L1184]
FIG51_LOADS: tuple[tuple[float, int, float], ...] = (
    (0.0, 1, 48.0), (0.0, 2, 18.0), (2.0, 3, 10.0), (5.0, 3, 8.0), (8.0, 2, 10.0))
#: Fig. 5.3's seven jobs of one user as (submit, end), laid out as [002 L1306-L1312]
#: describes them: (2)-(5) submitted before the running maximum end, (4) and (5) ending
#: before (3), (6) a long "linker", (7) submitted after every job but (6) has ended
MAX_JOBS: tuple[tuple[float, float], ...] = (
    (0.0, 10.0), (2.0, 12.0), (4.0, 20.0), (6.0, 9.0), (8.0, 15.0), (11.0, 40.0),
    (25.0, 30.0))


@dataclass(frozen=True)
class FairCampExample:
    """Figs. 4.1-4.2 computed: each user's deadlines, the blocks in start order."""

    deadlines: dict[int, list[float]]
    order: list[tuple[int, int]]
    block_deadlines: list[float]
    met: int
    campaigns: int
    starts: list[float]
    completions: list[float]


@dataclass(frozen=True)
class OStrichExample:
    """Fig. 5.1 computed: the virtual completions projected at each event."""

    at_0: tuple[float, float]
    at_2: tuple[float, float, float]
    start_2_3: float
    c_2_3: float
    c_2_2: float


@dataclass(frozen=True)
class MaxExample:
    """Figs. 5.3-5.4 computed: MAX campaigns with and without the linker, the DAG."""

    campaigns: list[list[int]]
    without_linker: list[list[int]]
    edges: list[tuple[int, int]]


def _fig41_workload() -> Workload:
    """One single-job campaign per Δ of Fig. 4.1 on one processor, closed loop, think 0."""
    camps = [{"user": u - 1, "submit": None, "jobs": [{"p": d}]}
             for u, lengths in FIG41_LENGTHS.items() for d in lengths]
    return make_workload(1, camps, users=len(FIG41_LENGTHS))


def faircamp_example() -> FairCampExample:
    """Figs. 4.1-4.2: FairCamp in blocks (the text's reading) on the Fig. 4.1 campaigns.

    Returns
    -------
    FairCampExample
        The deadlines per user (1-based, as the text numbers them), the (user, campaign)
        of each block in start order with its deadline, how many campaigns met their
        deadline, and the blocks' starts and completions.
    """
    w = _fig41_workload()
    run = faircamp(w)
    deadlines = np.asarray(run.info["deadlines"], dtype=float)
    users = w.user.tolist()
    index = [users[:c].count(users[c]) + 1 for c in range(w.campaigns)]
    by_user: dict[int, list[float]] = {}
    for c in range(w.campaigns):
        by_user.setdefault(users[c] + 1, []).append(float(deadlines[c]))
    first = run.first_start
    order = sorted(range(w.campaigns), key=lambda c: (float(first[c]), c))
    completion = run.completion
    return FairCampExample(
        by_user, [(users[c] + 1, index[c]) for c in order],
        [float(deadlines[c]) for c in order],
        int(np.sum(completion <= deadlines + 1e-9)), w.campaigns,
        [float(first[c]) for c in order], [float(completion[c]) for c in order])


def ostrich_example() -> OStrichExample:
    """Fig. 5.1: the virtual clock driven through the example's events on m = 6.

    Returns
    -------
    OStrichExample
        ``C̃`` of users 1 and 2 at t = 0; of users 1, 2, 3 at t = 2; ``s̃_2^3`` and
        ``C̃_2^3`` at t = 5; ``C̃_2^2`` at t = 8 (each projected at its event, Eq. 5.1).
    """
    vc = VirtualClock(6)
    camps = list(FIG51_LOADS)
    vc.advance(0.0)
    for c in (0, 1):
        vc.submit(c, camps[c][1], camps[c][2])
    at_0 = (vc.projected(0, 0.0), vc.projected(1, 0.0))
    vc.advance(2.0)
    vc.submit(2, camps[2][1], camps[2][2])
    at_2 = (vc.projected(0, 2.0), vc.projected(1, 2.0), vc.projected(2, 2.0))
    vc.advance(5.0)
    vc.submit(3, camps[3][1], camps[3][2])
    start_2_3, c_2_3 = vc.time_of(vc.S[3], 5.0), vc.projected(3, 5.0)
    vc.advance(8.0)
    vc.submit(4, camps[4][1], camps[4][2])
    return OStrichExample(at_0, at_2, start_2_3, c_2_3, vc.projected(4, 8.0))


def _groups(ids: np.ndarray, jobs: list[int]) -> list[list[int]]:
    """The jobs (1-based) of each campaign id, campaigns in id order."""
    return [[jobs[i] for i in np.flatnonzero(ids == c)] for c in np.unique(ids)]


def max_example() -> MaxExample:
    """Figs. 5.3-5.4: MAX on :data:`MAX_JOBS`, again without job 6, and the reduced DAG.

    Returns
    -------
    MaxExample
        The campaigns (lists of 1-based jobs), those without the linker, and the DAG's
        edges (1-based ``(before, after)``).
    """
    submit = np.array([s for s, _ in MAX_JOBS])
    end = np.array([e for _, e in MAX_JOBS])
    user = np.zeros(submit.size, dtype=np.int64)
    jobs = list(range(1, submit.size + 1))
    ids = detect(user, submit, end, "max")
    keep = np.array([j != 6 for j in jobs])
    without = detect(user[keep], submit[keep], end[keep], "max")
    src, dst = dependency_edges(ids, submit, end)
    return MaxExample(_groups(ids, jobs),
                      _groups(without, [j for j in jobs if j != 6]),
                      sorted((int(a) + 1, int(b) + 1) for a, b in zip(src, dst,
                                                                       strict=True)))
