"""Issue 31: the greedy readings (DD request timing, application switching), the eager CBS3M
dispatcher and the figures and fidelity table of ``reproduce cbs3m``."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lpsched import max_stretch
from lpsched.bags import Application, Instance, StarPlatform, random_bags
from lpsched.bags import reproduce as exp
from lpsched.bags.policies import get_policy
from lpsched.bags.policies.greedy import APP_RULES, GreedyPolicy
from lpsched.bags.schedule import Schedule, metrics, validate
from lpsched.bags.simulator import simulate
from lpsched.errors import LpschedError
from tests.conftest import small_instance

#: Worker 0 computes a task in 0.25 s, worker 1 in 4 s; every send takes 1 s.
SKEWED = Instance(StarPlatform([4.0, 0.25], [1.0, 1.0]), (Application(0.0, 4, 1.0, 1.0),))


def _order(sched: Schedule) -> list[int]:
    return [int(u) for u in sched.worker[np.argsort(sched.send_start, kind="stable")]]


def test_dd_served_on_reception_is_round_robin_by_hand():
    """Hand-checked on SKEWED. RR sends to 0, 1, 0, 1 back to back (t = 0, 1, 2, 3). DD with
    requests when idle (decision A20): 0 (t=0), 1 (t=1), 0 (t=2, worker 0 idle again at
    1.25), then nobody asks at t=3 (worker 1 computes until 6, worker 0 until 3.25): the
    port idles and worker 0 gets the last task at 3.25. DD with requests on reception
    (decision 316): the request queue is [0, 1] -> [1, 0] -> [0, 1] -> [1, 0]: RR exactly."""
    rr = simulate(SKEWED, GreedyPolicy("fifo", "rr")).schedule
    idle = simulate(SKEWED, GreedyPolicy("fifo", "dd", dd_request="idle")).schedule
    got = simulate(SKEWED, GreedyPolicy("fifo", "dd", dd_request="received")).schedule
    assert _order(rr) == [0, 1, 0, 1]
    assert np.allclose(np.sort(rr.send_start), [0, 1, 2, 3])
    assert _order(idle) == [0, 1, 0, 0]
    assert np.allclose(np.sort(idle.send_start), [0, 1, 2, 3.25])
    assert _order(got) == [0, 1, 0, 1]
    assert got.to_dict() == rr.to_dict()


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31 - 1), st.sampled_from(APP_RULES),
       st.sampled_from(("dispatch", "complete")))
def test_dd_on_reception_equals_rr_on_every_one_port_instance(seed, rule, switch):
    """Under one-port the reception reading makes DD's schedule RR's, whatever the speeds,
    releases and application rule (the identity of Tables 4-8 [L893-L1012])."""
    inst = small_instance(seed)
    rr = simulate(inst, GreedyPolicy(rule, "rr", switch=switch)).schedule
    dd = simulate(inst, GreedyPolicy(rule, "dd", dd_request="received",
                                     switch=switch)).schedule
    validate(inst, dd)
    assert dd.to_dict() == rr.to_dict()


def test_the_idle_reading_is_not_round_robin_on_the_seeds_instances():
    """The old reading (A20) departs from RR on a Table-2 instance: the identity above is a
    property of the reading, not of the instances."""
    inst = random_bags(seed=0)  # Table 2's 20 applications on 10 workers
    rr = simulate(inst, GreedyPolicy("fifo", "rr")).schedule
    dd = simulate(inst, GreedyPolicy("fifo", "dd", dd_request="idle")).schedule
    assert dd.to_dict() != rr.to_dict()


def test_switch_on_completion_waits_for_the_current_application():
    """``switch="complete"`` [L755, L763]: no task of the next application is sent before
    the current one is computed; ``"dispatch"`` (A17) sends it as soon as the current one is
    all sent."""
    inst = Instance(StarPlatform([1.0, 0.5], [4.0, 4.0]),
                    (Application(0.0, 4, 8.0, 1.0), Application(0.0, 3, 6.0, 1.0)))
    for rule in ("fifo-mct", "spt-rr", "swrpt-dd"):
        app, res = rule.split("-")
        done = simulate(inst, GreedyPolicy(app, res, switch="complete",
                                           dd_request="received")).schedule
        early = simulate(inst, GreedyPolicy(app, res, switch="dispatch",
                                            dd_request="received")).schedule
        validate(inst, done)
        first = int(done.app[np.argmin(done.send_start)])
        other = 1 - first
        assert done.send_start[done.app == other].min() >= done.end[done.app == first].max()
        assert early.send_start[early.app == other].min() < early.end[early.app == first].max()


def test_bad_readings_are_refused():
    with pytest.raises(LpschedError, match="dd_request"):
        GreedyPolicy("fifo", "dd", dd_request="sometimes")
    with pytest.raises(LpschedError, match="switch"):
        GreedyPolicy("fifo", "dd", switch="never")
    with pytest.raises(LpschedError, match="greedy reading"):
        exp.parse_reading("dd_request=idle;switch=late")


def port_idles_with_work(inst: Instance, sched: Schedule, tol: float = 1e-9) -> list[float]:
    """Times at which the one-port master's port starts an idle gap while a released
    application still has a task to send (sent later): empty for a work-conserving port."""
    order = np.argsort(sched.send_start, kind="stable")
    starts, ends, apps = sched.send_start[order], sched.send_end[order], sched.app[order]
    scale = max(float(ends.max()), 1.0)
    gaps = [(float(inst.release.min()), float(starts[0]))]
    gaps += [(float(ends[i]), float(starts[i + 1])) for i in range(starts.size - 1)]
    bad = []
    for a, b in gaps:
        if b - a <= tol * scale:
            continue
        for k in range(inst.n):
            later = starts[apps == k]
            if inst.release[k] <= a + tol * scale and (later >= b - tol * scale).any():
                bad.append(a)
                break
    return bad


EAGER = ["cbs3m-edf-online-eager", "cbs3m-edf-offline-eager", "cbs3m-fifo-online-eager",
         "cbs3m-fifo-offline-eager"]


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**31 - 1), st.sampled_from(EAGER))
def test_eager_dispatcher_never_idles_the_port_with_a_task_sendable(seed, name):
    """The eager dispatcher (decision 318) is work-conserving on the port; its schedule is
    valid and its max-stretch is not below the LP optimum."""
    inst = small_instance(seed, n=4, p=3)
    sched = simulate(inst, get_policy(name)).schedule
    validate(inst, sched)
    assert port_idles_with_work(inst, sched) == []
    assert metrics(inst, sched).max_stretch >= max_stretch(inst).stretch * (1 - 1e-7)


def test_the_lazy_dispatcher_idles_the_port_with_work_left():
    """The property above can fail: today's dispatcher (spec §4.4) waits for the next plan
    interval with tasks at the master."""
    idles = [bool(port_idles_with_work(inst, simulate(inst, get_policy(
        "cbs3m-edf-offline")).schedule)) for inst in (random_bags(5, 3, seed=s)
                                                       for s in range(4))]
    assert any(idles)


@pytest.mark.parametrize("profile", ["mpi", "simgrid", "balanced"])
@pytest.mark.parametrize("name", ["cbs3m-edf-online-eager", "cbs3m-fifo-offline-eager"])
def test_eager_dispatcher_on_every_generator_profile(profile, name):
    inst = random_bags(5, 3, profile=profile, seed=11)
    sched = simulate(inst, get_policy(name)).schedule
    validate(inst, sched)
    assert port_idles_with_work(inst, sched) == []
    assert metrics(inst, sched).max_stretch >= max_stretch(inst).stretch * (1 - 1e-7)


def _rows() -> list[dict]:
    """Synthetic reproduction rows: 6 instances x 5 policies, one failed run."""
    rng = np.random.default_rng(0)
    rows = []
    for s in range(6):
        bound = float(rng.uniform(2, 8))
        for p in ("fifo-rr", "fifo-dd", "swrpt-mct", "mwma-nbt", "cbs3m-edf-online",
                  "cbs3m-edf-online-eager"):
            value = bound * float(rng.uniform(1, 3))
            rows.append({"seed": s, "policy": p, "status": "ok", "reason": None,
                         "lp_bound": bound, **dict.fromkeys(exp.METRICS, value)})
    rows[3].update(status="failed", **dict.fromkeys(exp.METRICS))
    return rows


def test_select_keeps_the_seeds_eighteen_with_one_dispatcher():
    rows = _rows()
    lazy = {r["policy"] for r in exp.select(rows, "lazy")}
    eager = exp.select(rows, "eager")
    assert "cbs3m-edf-online-eager" not in lazy and "cbs3m-edf-online" in lazy
    assert {r["policy"] for r in eager} == lazy
    assert [r["max_stretch"] for r in eager if r["policy"] == "cbs3m-edf-online"] == [
        r["max_stretch"] for r in rows if r["policy"] == "cbs3m-edf-online-eager"]


def test_load_curves_bin_the_lp_optimum_and_skip_failed_runs():
    rows = exp.select(_rows(), "lazy")
    curve = exp.load_curves(rows, "max_stretch", bins=3)
    assert {r["bin"] for r in curve} <= {0, 1, 2}
    assert sum(r["instances"] for r in curve if r["policy"] == "swrpt-mct") == 6
    assert sum(r["instances"] for r in curve if r["policy"] == "mwma-nbt") == 5  # one failed
    for r in curve:
        assert r["load_lo"] <= r["load_mid"] <= r["load_hi"]
    # means recomputed by hand from the rows
    by = {(r["seed"], r["policy"]): r for r in rows}
    for r in curve:
        vals = [by[(s, r["policy"])]["max_stretch"] / by[(s, r["policy"])]["lp_bound"]
                for s in range(6) if by[(s, r["policy"])]["status"] == "ok"
                and r["load_lo"] - 1e-12 <= by[(s, r["policy"])]["lp_bound"]
                and (by[(s, r["policy"])]["lp_bound"] < r["load_hi"] or r["bin"] == 2)]
        assert r["instances"] == len(vals)
        assert r["mean"] == pytest.approx(np.mean(vals))


def test_family_order_and_the_rr_dd_identity():
    assert exp.family_order({"cbs3m-edf-online": 1.3, "mwma-nbt": 1.5, "spt-mct": 2.0,
                             "mwma-ms": 2.2, "fifo-rr": 4.3, "spt-dd": 4.8}) == \
        exp.SEED_TABLE3_ORDER
    rows = _rows()
    assert exp.rr_dd_identity(rows) == 0.0  # synthetic values differ
    for r in rows:
        if r["policy"] == "fifo-dd":
            twin = next(x for x in rows if x["seed"] == r["seed"] and x["policy"] == "fifo-rr")
            r["max_stretch"] = twin["max_stretch"]
    assert exp.rr_dd_identity(rows) == 100.0


def test_fidelity_rows_name_every_published_figure():
    tab = exp.fidelity(_rows(), "simgrid")
    figures = [r.figure for r in tab.rows]
    assert "Table 4 cbs3m-edf-online avg" in figures
    assert "RR = DD (pairs with equal max-stretch)" in figures
    assert any(f.startswith("Table 6 leader (eager") for f in figures)
    lazy_only = [r for r in _rows() if not str(r["policy"]).endswith(exp.EAGER)]
    eager = next(r for r in exp.fidelity(lazy_only, "simgrid").rows
                 if r.figure.startswith("Table 6 leader (eager"))
    assert eager.verdict.endswith("(run with --eager)")  # says how to measure it
    assert any(f.startswith("Table 3 order") for f in figures)
    row = next(r for r in tab.rows if r.figure == "Table 4 fifo-mct avg")
    assert row.verdict == "not measured"  # fifo-mct is not in the synthetic rows
    mpi = exp.fidelity(_rows(), "mpi")
    assert any(r.figure == "Table 3 order" and r.verdict != "not measured" for r in mpi.rows)


def test_write_figures_without_drawing_writes_the_csvs(tmp_path):
    """The CSV behind each figure is written first (the CLI's path without matplotlib)."""
    rows = exp.select(_rows(), "lazy")
    written = exp.write_figures(rows, tmp_path, figure5=True, draw=False)
    assert sorted(p.name for p in written) == sorted(
        [f"fig{exp.FIGURE_OF[m]}_{m}.csv" for m in exp.METRICS] + ["fig5_max_stretch.csv"])
    def plain(curve):  # NaN (a bin where a policy finished nothing) compares as None
        return [{k: None if isinstance(v, float) and v != v else v for k, v in r.items()}
                for r in curve]

    got = exp.read_curve_csv(tmp_path / "fig7_sum_stretch.csv")
    assert any(r["instances"] == 0 for r in got)
    assert plain(got) == plain(exp.load_curves(rows, "sum_stretch"))
    assert not list(tmp_path.glob("*.png"))


def test_interarrival_cells_carry_the_reading_and_the_default_keys_do_not():
    """Decision 321: ``arrivals="interarrival"`` is a sixth key element (never read back as
    an absolute-date cell); the default keeps the five elements of before."""
    assert len(exp.cells(1, policies=["fifo-mct"])[0]) == 5
    key = exp.cells(1, policies=["fifo-mct"], arrivals="interarrival")[0]
    assert key[5] == "interarrival"
    row, default = exp.cell(key)[0], exp.cell(key[:5])[0]
    assert row["status"] == default["status"] == "ok"
    inst = random_bags(profile="simgrid", seed=0, arrivals="interarrival")
    assert row["lp_bound"] == pytest.approx(max_stretch(inst).stretch)
    assert row["lp_bound"] != pytest.approx(default["lp_bound"])
    with pytest.raises(LpschedError, match="arrivals"):
        exp.cells(1, arrivals="poisson")
