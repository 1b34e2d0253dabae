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
    Table 2 shape, the ``simgrid`` default of 100 Mbit/s links, decision 36): the four CBS3M
    variants are the four best on average (seed: 1.163-1.379 against 1.857 and more [L893-
    L911]); CBS3M EDF online beats both offline variants and is within 1% of the best
    average; for every application rule X, X-MCT beats X-RR and X-DD (resource selection
    matters, [L863]); FIFO-RR among the worst.

    EDF online is no longer asserted to be *the* best: at 100 Mbit/s it and FIFO online
    are within 0.2% of each other on these 12 instances (1.1111 vs 1.1098), a tie within
    the noise; over 1,000 instances EDF online is best on average (1.109 vs 1.121, notes h3).

    The issue asks for "every *-rr and *-dd worse than every *-mct"; the seed's own Table 4
    contradicts that (FIFO_MCT 6.912 > SPT_RR 4.274), and so do our runs (FIFO-MCT lands
    among the RR/DD rows), so the per-rule comparison is what is asserted.
    """
    from lpsched.bags.policies import policy_names

    names = [n for n in policy_names() if not n.endswith("-eager")]  # the seed's 18
    ratios: dict[str, list[float]] = {n: [] for n in names}
    for seed in range(12):
        inst = random_bags(20, 10, seed=1000 + seed)
        lp = max_stretch(inst).stretch
        for n in names:
            m = metrics(inst, simulate(inst, get_policy(n)).schedule)
            ratios[n].append(m.max_stretch / lp)
    avg = {n: float(np.mean(v)) for n, v in ratios.items()}
    assert min(v for r in ratios.values() for v in r) >= 1 - 1e-6
    cbs3m = [n for n in names if n.startswith("cbs3m-")]
    assert len(cbs3m) == 4
    assert max(avg[n] for n in cbs3m) < min(v for n, v in avg.items() if n not in cbs3m)
    assert avg["cbs3m-edf-online"] < min(avg["cbs3m-edf-offline"], avg["cbs3m-fifo-offline"])
    assert avg["cbs3m-edf-online"] <= 1.01 * min(avg.values())
    for rule in ("fifo", "spt", "srpt", "swrpt"):
        assert avg[f"{rule}-mct"] < min(avg[f"{rule}-rr"], avg[f"{rule}-dd"])
    assert avg["fifo-rr"] >= sorted(avg.values())[-3]


def _old_row(key):
    return [{"seed": key[0], "policy": key[1], "status": "ok", "reason": None,
             "lp_bound": 1.0, "max_stretch": 1.0}]


def test_reproduction_keys_carry_the_bandwidth():
    """Decision 36: every cell of ``reproduce cbs3m`` names its base bandwidth (the profile's
    by default), so a store filled under simgrid's old default of 10 Mbit/s (keys
    ``(seed, policy, profile)``) is recomputed, never read back as today's results."""
    from lpsched.bags import reproduce as exp
    from lpsched.core import ResultStore, run_cells

    read = exp.reading()  # issue 31: the greedy reading is in the key too
    assert read == "dd_request=received;switch=complete"
    assert exp.cells(1, policies=["fifo-mct"]) == [(0, "fifo-mct", "simgrid", 12.5e6, read)]
    assert exp.cells(1, "mpi", policies=["fifo-mct"]) == [
        (0, "fifo-mct", "mpi", 1.25e6, read)]
    assert exp.cells(1, policies=["fifo-mct"], base_bandwidth=1.25e6) == [
        (0, "fifo-mct", "simgrid", 1.25e6, read)]
    store = ResultStore(":memory:")
    old = [(s, "fifo-mct", "simgrid") for s in range(2)]  # the keys before decision 36
    assert run_cells(exp.EXPERIMENT, old, _old_row, store, progress=False) == 2
    new = exp.cells(2, policies=["fifo-mct"])
    assert run_cells(exp.EXPERIMENT, new, exp.cell, store, progress=False) == 2
    assert run_cells(exp.EXPERIMENT, new, exp.cell, store, progress=False) == 0
    rows = store.rows(exp.EXPERIMENT)  # the 2 old rows kept beside the 2 computed now
    assert len(rows) == 4 and sum(r["max_stretch"] > 1.0 for r in rows) == 2
    # a key without the bandwidth is the profile's default (and the greedy reading of
    # before issue 31): the same row as the new key with that reading
    short = exp.cell(old[0])[0]
    full = exp.cell((*new[0][:4], "dd_request=idle;switch=dispatch"))[0]
    short.pop("seconds"), full.pop("seconds")
    assert short == full
