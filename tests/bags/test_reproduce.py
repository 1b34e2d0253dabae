"""The reproduction of seed 003 Tables 3-8 and Figures 5-10 (lpsched.bags.reproduce): the cell
keys, the CBS3M dispatcher chosen for the seed's 18, the tables, the load curves and a
reduced Table 4 (the seed-vs-ours table is tests/bags/test_fidelity.py's)."""

from __future__ import annotations

import numpy as np
import pytest

from lpsched import max_stretch
from lpsched.bags import random_bags
from lpsched.bags import reproduce as exp
from lpsched.bags.policies import get_policy
from lpsched.bags.schedule import metrics
from lpsched.bags.simulator import simulate
from lpsched.errors import LpschedError


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


def test_reduced_reproduction_ranking():
    """A reduced seed 003 Table 4 (max-stretch / LP optimum, averaged over 12 instances of the
    Table 2 shape, the ``simgrid`` default of 100 Mbit/s links, decision 36): the four CBS3M
    variants are the four best on average (seed: 1.163-1.379 against 1.857 and more [L893-
    L911]); CBS3M EDF online beats both offline variants and is within 1% of the best
    average; for every application rule X, X-MCT beats X-RR and X-DD (resource selection
    matters, [L863]); FIFO-RR among the worst.

    EDF online is no longer asserted to be *the* best: at 100 Mbit/s it and FIFO online
    are within 0.2% of each other on these 12 instances (1.1111 vs 1.1098), a tie within
    the noise; over 1,000 instances EDF online is best on average (1.109 vs 1.121).

    "Every *-rr and *-dd worse than every *-mct" does not hold: the seed's own Table 4
    contradicts it (FIFO_MCT 6.912 > SPT_RR 4.274), and so do our runs (FIFO-MCT lands
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
    by default), so a store filled under simgrid's 10 Mbit/s links (keys
    ``(seed, policy, profile)``) is recomputed, never read back as today's results."""
    from lpsched.bags import reproduce as exp
    from lpsched.core import ResultStore, run_cells

    read = exp.reading()  # the greedy reading is in the key too
    assert read == "dd_request=received;switch=complete"
    assert exp.cells(1, policies=["fifo-mct"]) == [(0, "fifo-mct", "simgrid", 12.5e6, read)]
    assert exp.cells(1, "mpi", policies=["fifo-mct"]) == [
        (0, "fifo-mct", "mpi", 1.25e6, read)]
    assert exp.cells(1, policies=["fifo-mct"], base_bandwidth=1.25e6) == [
        (0, "fifo-mct", "simgrid", 1.25e6, read)]
    store = ResultStore(":memory:")
    old = [(s, "fifo-mct", "simgrid") for s in range(2)]  # three-element keys
    assert run_cells(exp.EXPERIMENT, old, _old_row, store, progress=False) == 2
    new = exp.cells(2, policies=["fifo-mct"])
    assert run_cells(exp.EXPERIMENT, new, exp.cell, store, progress=False) == 2
    assert run_cells(exp.EXPERIMENT, new, exp.cell, store, progress=False) == 0
    rows = store.rows(exp.EXPERIMENT)  # the 2 old rows kept beside the 2 computed now
    assert len(rows) == 4 and sum(r["max_stretch"] > 1.0 for r in rows) == 2
    # a key without the bandwidth is the profile's default (and the keys' first greedy
    # reading, spec A17/A20): the same row as the new key with that reading
    short = exp.cell(old[0])[0]
    full = exp.cell((*new[0][:4], "dd_request=idle;switch=dispatch"))[0]
    short.pop("seconds"), full.pop("seconds")
    assert short == full
