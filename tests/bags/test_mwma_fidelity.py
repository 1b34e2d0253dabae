"""``benchmarks/seed003_fidelity.py`` (decisions 323–324): pooled runs over
disjoint seeds and the paired bootstrap of the score difference, on synthetic stores."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lpsched.bags import reproduce as exp
from lpsched.core import ResultStore

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "seed003_fidelity.py"


def _module():
    spec = importlib.util.spec_from_file_location("seed003_fidelity", SCRIPT)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _store(folder: Path, seeds: range, shift: float = 0.0) -> Path:
    """A store of the seed's 18 policies on ``seeds``: each policy's value is its seed
    average (every metric) times a per-instance factor, plus ``shift`` for the MCT rows."""
    folder.mkdir(parents=True, exist_ok=True)
    store = ResultStore(folder / f"{exp.EXPERIMENT}.sqlite")
    rng = np.random.default_rng(seeds.start)
    for s in seeds:
        f = float(rng.uniform(0.9, 1.1))
        for p in exp.SEED_AVERAGES["max_stretch"]:
            row = {"seed": s, "policy": p, "status": "ok", "reason": None, "lp_bound": 1.0}
            for m in exp.METRICS:
                row[m] = exp.SEED_AVERAGES[m][p] * f + (shift if p.endswith("-mct") else 0)
            store.add(exp.EXPERIMENT, (s, p, "simgrid"), [row])
    store.close()
    return folder


def test_pooled_folders_equal_one_folder_with_all_seeds(tmp_path):
    mod = _module()
    _store(tmp_path / "a", range(0, 5))
    _store(tmp_path / "b", range(5, 9))
    both = mod.load_rows(f"{tmp_path / 'a'},{tmp_path / 'b'}")
    assert sorted({r["seed"] for r in both}) == list(range(9))
    assert len(both) == 9 * 18
    with pytest.raises(SystemExit, match="already in an earlier folder"):
        mod.load_rows(f"{tmp_path / 'a'},{tmp_path / 'a'}")
    with pytest.raises(SystemExit, match="no store there"):
        mod.load_rows(str(tmp_path / "none"))


def test_paired_bootstrap_sees_a_shift_and_no_shift(tmp_path):
    mod = _module()
    old = mod.load_rows(_store(tmp_path / "old", range(0, 8)))
    same = mod.load_rows(_store(tmp_path / "same", range(0, 8)))
    worse = mod.load_rows(_store(tmp_path / "worse", range(0, 8), shift=0.5))
    d, lo, hi, n = mod.paired_bootstrap(old, same, 20)
    assert (d, lo, hi, n) == (0.0, 0.0, 0.0, 8)
    d, lo, hi, n = mod.paired_bootstrap(old, worse, 20)
    assert d > 0 and 0 < lo <= hi  # the MCT rows moved away from the seed's averages


def test_script_prints_both_scores_and_the_interval(tmp_path):
    a = _store(tmp_path / "a", range(0, 4))
    b = _store(tmp_path / "b", range(0, 4), shift=0.5)
    proc = subprocess.run([sys.executable, str(SCRIPT), str(a), str(b), "--bootstrap", "10"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert "new - old on the 4 shared instances: +" in proc.stdout
    assert "90 % interval" in proc.stdout
    bad = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path / "nowhere")],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 1 and "no store there" in bad.stderr


def test_with_mwma_recomputes_only_the_mwma_rows(tmp_path):
    """Two synthetic instances: the 16 other rows are kept as stored, the MWMA rows are
    the registered policies' own metrics under the defaults and move under a reading."""
    from lpsched.bags.generators import random_bags
    from lpsched.bags.policies import get_policy
    from lpsched.bags.schedule import metrics
    from lpsched.bags.simulator import simulate

    mod = _module()
    rows = mod.load_rows(_store(tmp_path / "a", range(0, 2)))
    today = mod.with_mwma(rows, {})
    assert [r for r in today if not r["policy"].startswith("mwma")] == [
        r for r in rows if not r["policy"].startswith("mwma")]
    inst = random_bags(profile="simgrid", seed=1)
    m = metrics(inst, simulate(inst, get_policy("mwma-ms")).schedule)
    got = next(r for r in today if r["seed"] == 1 and r["policy"] == "mwma-ms")
    assert got["max_stretch"] == pytest.approx(m.max_stretch)
    assert got["lp_bound"] == 1.0  # the stored bound, not recomputed
    payoff = mod.with_mwma(rows, mod.parse_mwma(["share=payoff"]))
    assert [r["max_stretch"] for r in payoff if r["policy"] == "mwma-nbt"] != [
        r["max_stretch"] for r in today if r["policy"] == "mwma-nbt"]


def test_mwma_option_errors_name_the_choices(tmp_path):
    a = _store(tmp_path / "a", range(0, 2))
    bad = subprocess.run([sys.executable, str(SCRIPT), str(a), "--mwma", "share=fair"],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 1
    assert "share=tasks|platform|payoff" in bad.stderr and bad.stdout == ""
    two = subprocess.run([sys.executable, str(SCRIPT), str(a), str(a), "--mwma"],
                         capture_output=True, text=True, timeout=120)
    assert two.returncode == 1 and "give one folder" in two.stderr


def test_ms_bound_by_hand_and_against_a_real_ms_run():
    """Decision 323's bound. By hand: two applications released at 0 on one worker (6 tasks
    of 1 s, 2 of 2 s: MS* = 6 and 4 s) end together at 10 s under NBT, so S = 10/4 and the
    bound is (rho·10/4)/S = rho. On a random instance, MWMA-MS's own max-stretch respects
    the bound at its own makespan ratio."""
    from lpsched.bags.generators import random_bags
    from lpsched.bags.instance import Application, Instance
    from lpsched.bags.platform import StarPlatform
    from lpsched.bags.policies.mwma import MWMA
    from lpsched.bags.schedule import metrics
    from lpsched.bags.simulator import simulate

    mod = _module()
    two = Instance(StarPlatform(speeds=np.array([1.0]), bandwidths=np.array([1e6])),
                   (Application(0.0, 6, 1.0, 1.0), Application(0.0, 2, 2.0, 1.0)))
    got = mod.ms_bound_of(two, {}, (1.0, 2.0))
    assert got[1.0] == pytest.approx(1.0, abs=1e-5)
    assert got[2.0] == pytest.approx(2.0, abs=1e-5)
    inst = random_bags(profile="simgrid", seed=3)
    nbt = metrics(inst, simulate(inst, MWMA("nbt")).schedule)
    ms = metrics(inst, simulate(inst, MWMA("ms")).schedule)
    rho = ms.makespan / nbt.makespan
    assert ms.max_stretch / nbt.max_stretch <= mod.ms_bound_of(inst, {}, (rho,))[rho] + 1e-9
