"""MWMA's readings (decisions 322–323): the LP weights and rates of each reading
on a hand-checked instance, their schedules valid, and the fidelity rows of MWMA pointing
at the decision that holds the evidence."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from lpsched.bags import fidelity
from lpsched.bags import reproduce as exp
from lpsched.bags.generators import random_bags
from lpsched.bags.instance import Application, Instance
from lpsched.bags.maxstretch import max_stretch
from lpsched.bags.platform import StarPlatform
from lpsched.bags.policies import get_policy
from lpsched.bags.policies.mwma import MWMA, READINGS
from lpsched.bags.schedule import metrics, validate
from lpsched.bags.seed_values import TABLES
from lpsched.bags.simulator import StarSimulator, simulate
from lpsched.bags.throughput_model import weighted_throughput_lp
from lpsched.errors import InvalidInstanceError, LpschedError
from lpsched.solvers import solve


def _two_apps() -> Instance:
    """One worker of 1 flop/s behind a fast link (sends of 1e-6 s): A0 has 6 tasks of 1 s,
    A1 2 tasks of 2 s, both released at 0. So ρ* = (1, 0.5) tasks/s and MS* = (6, 4) s."""
    platform = StarPlatform(speeds=np.array([1.0]), bandwidths=np.array([1e6]))
    return Instance(platform, (Application(0.0, 6, 1.0, 1.0), Application(0.0, 2, 2.0, 1.0)))


def _rates(inst: Instance, omega: np.ndarray, objective: str = "ratio") -> np.ndarray:
    sol = solve(weighted_throughput_lp(inst, omega, objective=objective))
    sol.require_optimal("test")
    return np.asarray(sol.values["rho"]).sum(axis=1)


# (weights, options) -> (the LP weights at time 0, the task rates Σ_u ρ_u^(k)), by hand:
# one CPU row ρ0·1 + ρ1·2 <= 1 (the port row is 1e-6 of it)
HAND = [
    ("nbt", {}, (6, 2), (0.6, 0.2)),                     # 10λ = 1: both end at 10 s
    ("ms", {}, (6, 4), (6 / 14, 4 / 14)),                # Π/ρ* = (6, 4): 14λ = 1
    ("ms", {"ms_weight": "work"}, (6, 4), (6 / 14, 4 / 14)),   # Π·w = (6·1, 2·2)
    ("nbt", {"share": "platform"}, (6, 1), (0.75, 0.125)),    # ω·ρ*: 8λ = 1
    ("ms", {"share": "platform"}, (6, 2), (0.6, 0.2)),   # MS under M2 is today's NBT
    ("nbt", {"share": "payoff"}, (1 / 6, 1 / 2), (1 / 7, 3 / 7)),  # λ/6 + λ = 1
]


@pytest.mark.parametrize(("weights", "options", "omega", "rates"), HAND)
def test_lp_weights_and_rates_by_hand(weights, options, omega, rates):
    inst = _two_apps()
    policy = MWMA(weights, **options)
    sim = StarSimulator(inst, policy)
    sim.released[:] = True
    assert policy.lp_weights(sim) == pytest.approx(omega)
    assert _rates(inst, policy.lp_weights(sim)) == pytest.approx(rates, rel=1e-4)


def test_m1_weighs_the_work_left_not_the_dedicated_time():
    """A communication-bound application: its dedicated time is set by its sends, its
    weight under M1 by its flop only (the two MS readings differ)."""
    platform = StarPlatform(speeds=np.array([1.0]), bandwidths=np.array([1.0]))
    inst = Instance(platform, (Application(0.0, 4, 1.0, 3.0), Application(0.0, 4, 1.0, 0.5)))
    sim = StarSimulator(inst, MWMA("ms"))
    sim.released[:] = True
    assert MWMA("ms").lp_weights(sim) == pytest.approx([4 * 3.0, 4 * 1.0])  # Π·max(3,1), Π·1
    assert MWMA("ms", ms_weight="work").lp_weights(sim) == pytest.approx([4.0, 4.0])


def test_weighted_sum_objective_gives_the_port_to_the_best_weight_per_second():
    """M5: maximise 6ρ0 + 2ρ1 s.t. ρ0 + 2ρ1 <= 1: all to A0."""
    assert _rates(_two_apps(), np.array([6.0, 2.0]), "sum") == pytest.approx([1.0, 0.0],
                                                                               abs=1e-9)


def test_unreleased_and_finished_applications_get_no_weight():
    inst = _two_apps()
    policy = MWMA("nbt", share="payoff")
    sim = StarSimulator(inst, policy)
    sim.released[:] = [True, False]
    assert policy.lp_weights(sim) == pytest.approx([1 / 6, 0.0])


def test_release_only_resolves_fewer_times_than_event():
    """M4: with both applications released at 0 the LP is solved once; today's reading
    solves again when the first one runs out at the master."""
    inst = _two_apps()
    event = simulate(inst, MWMA("ms"))
    release = simulate(inst, MWMA("ms", resolve="release"))
    assert release.stats["solves"] == 1 < event.stats["solves"]
    for res in (event, release):
        validate(inst, res.schedule)


@pytest.mark.parametrize("option", [(k, v) for k, vs in READINGS.items() for v in vs[1:]])
@pytest.mark.parametrize("weights", ["nbt", "ms"])
def test_every_reading_is_valid_and_above_the_lp_bound(option, weights):
    inst = random_bags(6, 3, seed=5)
    res = simulate(inst, MWMA(weights, **{option[0]: option[1]}))
    validate(inst, res.schedule)
    assert metrics(inst, res.schedule).max_stretch >= max_stretch(inst).stretch * (1 - 1e-7)


def test_defaults_are_the_registered_policies():
    inst = random_bags(6, 3, seed=2)
    for w in ("nbt", "ms"):
        a = metrics(inst, simulate(inst, MWMA(w)).schedule).to_dict()
        b = metrics(inst, simulate(inst, get_policy(f"mwma-{w}")).schedule).to_dict()
        assert a == b


def test_bad_options_are_refused():
    with pytest.raises(LpschedError, match=r"share='fair'.*tasks, platform, payoff"):
        MWMA("nbt", share="fair")
    with pytest.raises(LpschedError, match="expected 'nbt' or 'ms'"):
        MWMA("tasks")
    with pytest.raises(InvalidInstanceError, match="objective"):
        weighted_throughput_lp(_two_apps(), [1.0, 1.0], objective="max")


def _rows(n: int, nbt: float | None = None, ms: float | None = None) -> tuple[dict, ...]:
    """``n`` instances of the seed's 18 policies, each metric within 1 % of the seed's
    Table 4-8 average times the LP bound; MWMA's max-stretch over the bound ``nbt`` and
    ``ms`` instead when given."""
    rng = np.random.default_rng(0)
    out = []
    for s in range(n):
        bound = float(rng.uniform(2.0, 10.0))
        for p in TABLES["max_stretch"][1]:
            row = {"seed": s, "policy": p, "status": "ok", "reason": None, "lp_bound": bound}
            for m in exp.METRICS:
                mine = {"mwma-nbt": nbt, "mwma-ms": ms}.get(p) if m == "max_stretch" else None
                row[m] = bound * (mine or TABLES[m][1][p].avg.value) * rng.uniform(0.99, 1.01)
            out.append(row)
    return tuple(out)


def _table4_mwma(rows: tuple[dict, ...]) -> dict[str, Any]:
    setting = fidelity.Setting("simgrid", 12.5e6, "dd_request=received;switch=complete")
    table = fidelity.cbs3m_table([fidelity.Run(setting, rows)])
    return {r.figure: r for r in table.rows
            if r.figure in ("Table 4 MWMA_NBT avg", "Table 4 MWMA_MS avg")}


def test_mwma_fidelity_rows_point_at_decision_323():
    table = _table4_mwma(_rows(200, 4.6, 4.7))
    assert len(table) == 2
    for row in table.values():
        assert row.kind == "differs: not reproduced" and row.decision == 323, row
        assert "decision 323" in row.verdict
    # a figure that comes back is a match, never "explained"
    assert all(r.verdict == "match" for r in _table4_mwma(_rows(200)).values())


def test_paced_sends_follow_the_lp_rates_by_hand():
    """M6 on the two-application instance (rates 0.6 and 0.2 tasks/s, one solve with
    ``resolve="release"``): A0's sends start at 0, 1/0.6, 2/0.6, ..., A1's at 0 and 5 s;
    the eager reading sends all 8 back to back (the last by 1e-5 s)."""
    inst = _two_apps()
    res = simulate(inst, MWMA("nbt", send="paced", resolve="release"))
    validate(inst, res.schedule)
    s = res.schedule
    starts = {k: np.sort(s.send_start[s.app == k]) for k in (0, 1)}
    # each send waits for its pace time, or for the port (sends of 1e-6 s)
    assert starts[0] == pytest.approx(np.arange(6) / 0.6, abs=1e-5)
    assert starts[1] == pytest.approx([0.0, 5.0], abs=1e-5)
    eager = simulate(inst, MWMA("nbt", resolve="release")).schedule
    assert eager.send_start.max() < 1e-4
