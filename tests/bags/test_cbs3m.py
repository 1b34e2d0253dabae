import numpy as np
import pytest

from lpsched import max_stretch
from lpsched.bags import random_bags
from lpsched.bags.policies import get_policy
from lpsched.bags.policies.cbs3m import CBS3M
from lpsched.bags.schedule import metrics, validate
from lpsched.bags.simulator import buffered_state, simulate


class Audited(CBS3M):
    """CBS3M online that checks the state it hands to the solver (spec §11 inv. 26)."""

    def __init__(self) -> None:
        super().__init__("edf", True)
        self.audits = 0

    def _solve(self, sim):
        buffered = buffered_state(sim)
        computing = np.zeros(sim.n)
        for i in sim.computing:
            if i >= 0:
                computing[int(sim.rec_app[i])] += 1
        held = sim.unsent + buffered.sum(axis=1) + sim.done
        assert (held <= sim.tasks + 1e-9).all()
        assert (held >= sim.tasks - computing - 1e-9).all()
        assert (buffered >= 0).all()
        self.audits += 1
        super()._solve(sim)


def test_online_state_is_conserved_at_every_resolve():
    inst = random_bags(10, 5, seed=2)
    policy = Audited()
    res = simulate(inst, policy)
    validate(inst, res.schedule)
    assert policy.audits >= inst.n  # one per arrival, plus any re-solve
    assert len(res.stats["stretches"]) == policy.audits


def test_first_online_solve_is_stretch_one():
    inst = random_bags(6, 3, seed=4)
    res = simulate(inst, get_policy("cbs3m-edf-online"))
    assert res.stats["stretches"][0] == pytest.approx(1.0, abs=1e-9)


def test_reduced_reproduction_ranking():
    """A reduced seed 003 Table 4 (max-stretch / LP optimum, averaged over 12 instances of the
    Table 2 shape): CBS3M EDF online best on average; for every application rule X, X-MCT
    beats X-RR and X-DD (resource selection matters, [L863]); FIFO-RR among the worst.

    The issue asks for "every *-rr and *-dd worse than every *-mct"; the seed's own Table 4
    contradicts that (FIFO_MCT 6.912 > SPT_RR 4.274), and so do our runs (FIFO-MCT lands
    among the RR/DD rows), so the per-rule comparison is what is asserted.
    """
    from lpsched.bags.policies import policy_names

    names = policy_names()
    ratios: dict[str, list[float]] = {n: [] for n in names}
    for seed in range(12):
        inst = random_bags(20, 10, seed=1000 + seed)
        lp = max_stretch(inst).stretch
        for n in names:
            m = metrics(inst, simulate(inst, get_policy(n)).schedule)
            ratios[n].append(m.max_stretch / lp)
    avg = {n: float(np.mean(v)) for n, v in ratios.items()}
    assert min(v for r in ratios.values() for v in r) >= 1 - 1e-6
    assert avg["cbs3m-edf-online"] == min(avg.values())
    for rule in ("fifo", "spt", "srpt", "swrpt"):
        assert avg[f"{rule}-mct"] < min(avg[f"{rule}-rr"], avg[f"{rule}-dd"])
    assert avg["fifo-rr"] >= sorted(avg.values())[-3]
