"""CBS3M's plan dispatcher (:class:`lpsched.bags.policies.cbs3m.PlanDispatcher`) picks, at
every dispatch of real runs, the send the reference formulation picks: candidates from
``np.argwhere`` of the quotas left on free links, ordered by tail first, then due date,
application and worker (the dispatcher reads them with ``np.nonzero``, in the same C
order)."""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest

from lpsched.bags import random_bags
from lpsched.bags.policies import cbs3m, get_policy
from lpsched.bags.policies.cbs3m import LINKS_BUSY, PlanDispatcher
from lpsched.bags.simulator import StarSimulator, simulate
from tests.conftest import small_instance


def reference_choice(d: PlanDispatcher, sim: StarSimulator) -> tuple[int, int] | float | None:
    """The dispatcher's choice in its reference (``np.argwhere``) formulation, on ``d``
    itself (a copy: it counts the send)."""
    ready = (sim.unsent[d.apps] > 0) & sim.released[d.apps]
    left = (d.quota - d.sent) * ready[:, None] * sim.free_links()[None, :]
    cand = np.argwhere(left > 0)
    if cand.size:
        rows, us = cand[:, 0], cand[:, 1]
        rate = d.rate[rows, us]
        due = np.where(rate > 0, (d.sent[rows, us] + 1) / np.where(rate > 0, rate, 1.0),
                       math.inf)
        tail = d.j >= d.last[rows]
        due = np.where(tail, d.deadlines[rows], due)
        row, u = cand[np.lexsort((us, d.apps[rows], due, ~tail))[0]]
        d.sent[row, u] += 1
        d.credit[row, u] -= 1
        return int(d.apps[row]), int(u)
    if not sim.free_links().all() and ((d.quota - d.sent) * ready[:, None] > 0).any():
        return LINKS_BUSY
    if d.j < d.n_intervals - 1:
        return float(d.epochs[d.j + 1])
    return None


@pytest.fixture
def checked(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every dispatcher choice of the runs compared with :func:`reference_choice` on a copy
    of the dispatcher's state; returns the count of choices compared (and sends among
    them)."""
    seen = [0, 0]
    real = PlanDispatcher._next_in_interval

    def compare(self: PlanDispatcher, sim: StarSimulator) -> tuple[int, int] | float | None:
        ref = copy.copy(self)
        ref.sent, ref.credit = self.sent.copy(), self.credit.copy()
        want = reference_choice(ref, sim)
        got = real(self, sim)
        assert got == want
        assert np.array_equal(self.sent, ref.sent)
        assert self.credit.tobytes() == ref.credit.tobytes()
        seen[0] += 1
        seen[1] += isinstance(got, tuple)
        return got

    monkeypatch.setattr(PlanDispatcher, "_next_in_interval", compare)
    monkeypatch.setattr(cbs3m, "SOLVES", cbs3m.SolveMemo())
    return seen


@pytest.mark.parametrize("name", ["cbs3m-edf-offline", "cbs3m-fifo-online",
                                  "cbs3m-edf-online-eager"])
def test_choices_of_generated_runs_are_the_reference_ones(checked, name) -> None:
    simulate(random_bags(profile="mpi", seed=5), get_policy(name))
    assert checked[1] > 0 and checked[0] > checked[1]  # sends and waits both compared


@pytest.mark.parametrize("seed", range(6))
def test_choices_on_multiport_links_are_the_reference_ones(checked, seed) -> None:
    inst = small_instance(seed, n=4, p=3, port="multiport", bw=2.0)
    for name in ("cbs3m-edf-online", "cbs3m-fifo-offline"):
        simulate(inst, get_policy(name))
    assert checked[1] > 0
