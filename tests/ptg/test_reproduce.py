"""The reproduction, reduced (seed 004 §6.5, §7, spec §(a)); the full 1,500 x 19 run is
``lpsched reproduce ptg`` (benchmarks/RESULTS.md)."""

from __future__ import annotations

import pytest

from lpsched.core import ResultStore, run_cells
from lpsched.ptg import reproduce as exp
from lpsched.ptg.hcpa import DEFAULT_BOUND, FITTED_BOUND, NO_BOUND, HcpaBound


@pytest.fixture(scope="module")
def reduced() -> tuple[list, dict]:
    # pinned under the A9-fitted variant (decision 170), whose outcomes this file records;
    # the default (the seed's literal wording, decision 336) is run by
    # tests/cli/test_ptg_cli.py
    cells = exp.cells(10**4, 0, sets=2, n_values=(2, 4), clusters=("chti", "grillon"),
                      hcpa_bound=FITTED_BOUND)
    store = ResultStore(":memory:")
    assert run_cells("ptg", cells, exp.cell_rows, store, progress=False) == len(cells) == 24
    assert run_cells("ptg", cells, exp.cell_rows, store, progress=False) == 0  # resumable
    rows = store.rows_of("ptg", cells)
    return rows, exp.summary(rows)


def test_rows_and_bounds(reduced: tuple[list, dict]) -> None:
    rows, summ = reduced
    assert len(rows) == 24 * 19
    assert summ["scenarios"] == 24 and summ["bounds_hold"] is True
    assert summ["ratios_to_selfish"]["selfish"] == {"makespan": 1.0, "ssct": 1.0,
                                                   "max_stretch": 1.0}
    box = summ["boxes"]["ssct"]["all"]["selfish"]
    assert box["min"] <= box["q1"] <= box["median"] <= box["q3"] <= box["max"]


def test_acceptance_checks_reduced(reduced: tuple[list, dict]) -> None:
    """On this reduced set (seeded, deterministic; N in {2, 4}, no gdx) checks 1, 2, 3 and
    6 of spec §(a) hold with the tolerances of decision 134 (docs/decisions.md) under the
    A9-fitted improved-HCPA bound ``budget:0.65`` (with plain CPA only check 1 held, and CRA gave a
    stretch below 1 in 12 of the 24 scenarios); every check reports the values it
    tested."""
    _rows, summ = reduced
    checks = {c["check"][0]: c for c in summ["acceptance"]}
    assert sorted(checks) == list("1234567")
    assert [k for k, c in checks.items() if c["passed"]] == ["1", "2", "3", "6"]
    assert checks["6"]["values"]["share_of_scenarios"] == 1 / 24  # paper: 6 %
    assert checks["6"]["values"]["share_N>=6"] is None
    assert checks["3"]["values"]["best"] == "cafm-cra"
    assert set(checks["7"]["values"]["max_ssct"]) == {"cafm-lptf", "cafm-saf", "cafm-sptf",
                                                      "cafm-k-shelves"}
    # SELFISH ORDER is much fairer than SELFISH (Fig. 4's ordering)
    assert summ["ratios_to_selfish"]["selfish-order"]["max_stretch"] < 0.5


def test_balanced_prefix() -> None:
    cells = exp.cells(60)
    assert {(c[0], c[1], c[3]) for c in cells} == {
        (cls, n, cl) for cls in ("random", "fft", "strassen") for n in (2, 4, 6, 8, 10)
        for cl in ("grelon", "grillon", "chti", "gdx")}
    everything = exp.cells()
    assert len(everything) == 1500 and len(set(everything)) == 1500
    assert {c[7] for c in everything} == {str(DEFAULT_BOUND)}  # the bound is in the key
    assert everything[:60] == cells and {c[2] for c in cells} == {0}
    for k in (1, 7, 12, 25, 37, 59, 60, 97):  # every prefix: counts differ by at most 1
        prefix = everything[:k]
        for pos, values in ((0, ("random", "fft", "strassen")), (1, (2, 4, 6, 8, 10)),
                            (3, ("grelon", "grillon", "chti", "gdx"))):
            counts = [sum(c[pos] == v for c in prefix) for v in values]
            assert max(counts) - min(counts) <= 1, (k, pos, counts)
    assert exp.cells(12) == exp.cells(12)  # deterministic


@pytest.mark.parametrize("sizes", [(3, 5, 4), (3, 2, 2), (1, 2, 2), (2, 4, 6)])
def test_interleaved_prefixes(sizes: tuple[int, ...]) -> None:
    order = exp.interleaved(sizes)
    assert sorted(order) == sorted(set(order)) and len(order) == sizes[0] * sizes[1] * sizes[2]
    for k in range(1, len(order) + 1):
        for d, n in enumerate(sizes):
            counts = [sum(t[d] == v for t in order[:k]) for v in range(n)]
            assert max(counts) - min(counts) <= 1


def test_rank_difference(reduced: tuple[list, dict]) -> None:
    _rows, summ = reduced
    rd = summ["rank_difference"]
    assert set(rd) == {"ssct", "makespan", "max_stretch"}
    assert set(rd["ssct"]) == {"random", "fft", "strassen"}
    assert all(0 <= v <= 18 for m in rd.values() for v in m.values())


def _synthetic(makespan: dict[str, float] | None = None, ssct_max: dict[str, float] | None = None,
               below_one: tuple[tuple[int, int], ...] = ()) -> list[dict]:
    """19 algorithms x 20 scenarios (N = 2 and N = 8, 10 sets each) on gdx; every value 1
    (makespan 100) unless given: ``makespan[alg]``, ``ssct_max[alg]`` (in set 0 only),
    ``below_one``: ``(N, set)`` scenarios where CRA WORK gives a stretch 0.9."""
    from lpsched.ptg.registry import ALGORITHMS

    rows = []
    for n in (2, 8):
        for k in range(10):
            for a in ALGORITHMS:
                ssct = (ssct_max or {}).get(a, 1.0) if k == 0 else 1.0
                low = 0.9 if a == "cra-work" and (n, k) in below_one else 1.0
                rows.append({"class": "random", "N": n, "set": k, "cluster": "gdx",
                             "algorithm": a, "makespan": (makespan or {}).get(a, 100.0),
                             "ssct": ssct, "max_stretch": 1.0, "min_stretch": low,
                             "utilisation": 0.9, "lb_makespan": 1.0, "lb_ssct": 0.1,
                             "lb_ptg_ok": True})
    return rows


def _check(rows: list[dict], number: str) -> dict:
    return next(c for c in exp.summary(rows)["acceptance"] if c["check"].startswith(number))


@pytest.mark.parametrize(("ratio", "passed"), [(0.46, False), (0.8, True), (0.72, True),
                                               (0.95, False)])
def test_check3_needs_a_ratio_about_0_8(ratio: float, passed: bool) -> None:
    c = _check(_synthetic(makespan={"cafm-cra": 100 * ratio}), "3")
    assert c["passed"] is passed and c["values"]["ratio"] == pytest.approx(ratio)


@pytest.mark.parametrize(("below", "passed"), [
    (((2, 0),), True),  # 1 scenario in 20: 5 %, with N = 2
    (tuple((2, k) for k in range(10)), False),  # 50 %
    (((8, 0),), False),  # 5 %, but only with many PTGs
    ((), False),  # never
])
def test_check6_needs_about_6_percent_at_small_n(below: tuple, passed: bool) -> None:
    c = _check(_synthetic(below_one=below), "6")
    assert c["passed"] is passed
    assert c["values"]["share_of_scenarios"] == pytest.approx(len(below) / 20)


@pytest.mark.parametrize(("worst", "passed"), [
    ({"cafm-lptf": 6.0, "cafm-k-shelves": 4.0, "cafm-saf": 4.2, "cafm-sptf": 4.3}, True),
    ({"cafm-lptf": 6.0, "cafm-k-shelves": 4.0, "cafm-saf": 5.9, "cafm-sptf": 4.3}, False),
    ({"cafm-lptf": 6.0, "cafm-k-shelves": 4.0, "cafm-saf": 4.2, "cafm-sptf": 6.5}, False),
])
def test_check7_compares_lptf_with_every_short_first_cafm(worst: dict, passed: bool) -> None:
    c = _check(_synthetic(ssct_max=worst), "7")
    assert c["passed"] is passed and c["values"]["max_ssct"]["cafm-lptf"] == 6.0


def test_cells_carry_the_improved_hcpa_bound() -> None:
    """A cell names its bound, so a store computed under another bound is never reused,
    and its problem is built with that bound."""
    plain = exp.cells(3, hcpa_bound=NO_BOUND)
    calibrated = exp.cells(3)
    assert [c[:7] for c in plain] == [c[:7] for c in calibrated]
    assert {c[7] for c in plain} == {"none"} and not set(plain) & set(calibrated)
    assert exp.problem_of(plain[0]).hcpa_bound == NO_BOUND
    assert exp.problem_of(calibrated[0]).hcpa_bound == DEFAULT_BOUND
    half = exp.cells(1, hcpa_bound=HcpaBound("fraction", 0.5))[0]
    assert half[7] == "fraction:0.5"
    assert exp.problem_of(half).hcpa_bound == HcpaBound("fraction", 0.5)


def _populations(ssct: dict[str, tuple[float, float, float]],
                 makespan: dict[str, tuple[float, float, float]]) -> list[dict]:
    """19 algorithms x 3 scenarios of each class (random, fft, strassen) on chti; an
    algorithm's SSCT and Cmax medians per class are ``ssct[alg]`` / ``makespan[alg]``
    (default 1 and 100 everywhere). The three values of a class are the median times
    (0.5, 1, 1.1) for random, (1, 1, 1) for fft and (0.9, 1, 3) for strassen, so the
    class means are not in the medians' ratios."""
    from lpsched.ptg.registry import ALGORITHMS

    spread = {"random": (0.5, 1.0, 1.1), "fft": (1.0, 1.0, 1.0), "strassen": (0.9, 1.0, 3.0)}
    rows = []
    for c, (cls, factors) in enumerate(spread.items()):
        for k, f in enumerate(factors):
            for a in ALGORITHMS:
                rows.append({"class": cls, "N": 2, "set": k, "cluster": "chti", "algorithm": a,
                             "ssct": f * ssct.get(a, (1.0, 1.0, 1.0))[c],
                             "makespan": f * makespan.get(a, (100.0, 100.0, 100.0))[c],
                             "max_stretch": 1.0, "min_stretch": 1.0, "utilisation": 0.9,
                             "lb_makespan": 1.0, "lb_ssct": 0.1, "lb_ptg_ok": True})
    return rows


def test_population_median_difference_pair_and_denominator() -> None:
    """A7/A13 (seed [L555-558], [L600-602]): per algorithm, the largest relative
    difference between the medians of two of the three populations, relative to the
    smaller median. F1's medians 2 (random), 3 (fft), 4 (strassen) give 1.0; the wrong
    pair would give 0.5 (random/fft) or 1/3 (fft/strassen), the larger median as the
    denominator 0.5, the mean of the two 2/3, the means instead of the medians 3.25/2 - 1."""
    rows = _populations(ssct={"f1": (2.0, 3.0, 4.0), "selfish": (5.0, 2.5, 4.0),
                              "c1": (1.0, 1.2, 1.1)},
                        makespan={"c4": (300.0, 200.0, 250.0)})
    summ = exp.summary(rows)
    pmd = summ["population_median_difference"]
    assert set(pmd) == {"ssct", "makespan", "max_stretch"}
    s = pmd["ssct"]
    assert s["relative"]["f1"] == pytest.approx(1.0)
    assert s["absolute"]["f1"] == pytest.approx(2.0)
    assert s["pair"]["f1"] == ["random", "strassen"]
    assert s["relative"]["selfish"] == pytest.approx(1.0) and s["pair"]["selfish"] == [
        "fft", "random"]
    assert s["relative"]["c1"] == pytest.approx(0.2)
    assert s["relative"]["c4"] == 0.0 and s["pair"]["c4"][0] != s["pair"]["c4"][1]
    assert s["mean_relative"] == pytest.approx(2.2 / 19)
    assert s["mean_absolute"] == pytest.approx((2.0 + 2.5 + 0.2) / 19)
    assert s["max"][1] == pytest.approx(1.0) and s["min"][1] == 0.0
    m = pmd["makespan"]
    assert m["relative"]["c4"] == pytest.approx(0.5) and m["pair"]["c4"] == ["fft", "random"]
    assert m["max"] == ["c4", pytest.approx(0.5)]
    # the targets: A7 puts F1 and SELFISH apart from the others, A13 ranges over all 19
    a7 = summ["targets"]["A7"]
    assert a7["paper"]["f1"] == 0.520 and a7["paper"]["others_mean"] == 0.192
    assert a7["ours"]["f1"] == pytest.approx(1.0) and a7["ours"]["selfish"] == pytest.approx(1.0)
    assert a7["ours"]["others_max"] == ["c1", pytest.approx(0.2)]
    assert a7["ours"]["others_mean"] == pytest.approx(0.2 / 17)
    assert a7["ours"]["mean_absolute"] == pytest.approx(4.7 / 19)
    a13 = summ["targets"]["A13"]
    assert a13["paper"]["max"] == ["cafm-cra-weight", 0.398]
    assert a13["ours"]["max"] == ["c4", pytest.approx(0.5)]
    assert a13["ours"]["mean"] == pytest.approx(0.5 / 19) and a13["ours"]["c4"] == 0.5


def test_population_median_difference_needs_two_populations(
        reduced: tuple[list, dict]) -> None:
    """One population gives nothing to compare; the reduced run has all three."""
    rows, summ = reduced
    only = exp.summary([r for r in rows if r["class"] == "fft"])
    assert only["population_median_difference"]["ssct"]["relative"] == {}
    assert only["population_median_difference"]["ssct"]["mean_relative"] is None
    assert only["targets"]["A7"]["ours"]["others_mean"] is None
    pmd = summ["population_median_difference"]["makespan"]
    assert len(pmd["relative"]) == 19 and all(v >= 0 for v in pmd["relative"].values())
