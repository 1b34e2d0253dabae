"""Seed 004's seed-vs-ours table (:func:`lpsched.ptg.fidelity.ptg_table`) under the one
rule of :mod:`lpsched.core.fidelity`: every manifest entry a row at every size, a reduced
run never judging an extreme or a row whose noise hides the answer, calibration rows
(Table 2's chosen reading, A7, a run under ``budget:``) kept out of the tally, every
printed value on the seed lines its row cites."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

from lpsched.ptg.fidelity import SEED_TABLE2, TABLE2_CLUSTERS, ptg_table
from lpsched.ptg.registry import ALGORITHMS
from lpsched.report.manifest import manifest

#: seed 004's entries of the experiment ``ptg`` and of no experiment (Figure 1)
ENTRIES = {e.id for e in manifest("004") if e.experiment in ("ptg", "none")}


def fake_rows(per_class: int, seed: int = 0, selfish_order_ssct: float = 1.5,
              bound_scale: float = 1.0) -> list[dict[str, Any]]:
    """Rows of ``3 * per_class`` scenarios, every algorithm, drawn at random: metrics near
    the seed's (SELFISH ORDER's SSCT set by ``selfish_order_ssct``)."""
    rng = np.random.default_rng(seed)
    rows = []
    for cls in ("random", "fft", "strassen"):
        for k in range(per_class):
            n = (2, 4, 6, 8, 10)[k % 5]
            cluster = TABLE2_CLUSTERS[k % 4]
            for j, alg in enumerate(ALGORITHMS):
                ssct = selfish_order_ssct if alg == "selfish-order" else 2.0 + 0.05 * j
                rows.append({
                    "class": cls, "N": n, "set": k, "cluster": cluster, "algorithm": alg,
                    "makespan": bound_scale * (300 + 5 * j) * rng.uniform(0.5, 1.5),
                    "ssct": ssct * rng.uniform(0.9, 1.1),
                    "max_stretch": (2 + j) * rng.uniform(0.5, 2.0),
                    "min_stretch": rng.uniform(0.8, 1.2), "utilisation": 0.9,
                    "util_makespan": rng.uniform(0.3, 0.8),
                    "util_used_processors": rng.uniform(0.9, 1.0),
                    "seconds": 0.01 * (1 + j), "shared_seconds": 0.02})
    return rows


def _by(table: Any, figure: str) -> Any:
    return next(r for r in table.rows if r.figure == figure)


def test_an_empty_run_gives_every_entry_a_row_not_measured() -> None:
    table = ptg_table([])
    assert ENTRIES <= {r.ref for r in table.rows}
    assert table.size is None
    measured = [r for r in table.rows if not r.verdict.startswith("not measured")]
    # only the set-up facts the code fixes are judged without a run
    assert measured and {r.ref[:6] for r in measured} <= {"004-T1", "004-S-"}
    assert all(r.source and r.seed_line.startswith("004 L") for r in table.rows)


def test_table2_every_cell_under_both_readings_with_its_line() -> None:
    table = ptg_table([])
    cells = [r for r in table.rows if r.ref == "004-T2"]
    assert len(cells) == 2 * 76
    text = [r for r in cells if "text's reading" in r.figure]
    chosen = [r for r in cells if "decision 340" in r.figure]
    assert {r.role for r in text} == {"validation"}
    assert {r.role for r in chosen} == {"calibration"}  # chosen on Table 2: decision 340
    gdx = _by(table, "Table 2 CAFM K SHELVES gdx (busy area / (P Cmax), the text's reading)")
    assert gdx.seed_value == "88.07 %" and gdx.seed_line == "004 L846"
    assert len(SEED_TABLE2) == 19


def test_a_reduced_run_never_judges_an_extreme_and_says_its_size() -> None:
    table = ptg_table(fake_rows(10))
    assert table.size is not None and table.size.label() == "30 of 1,500 scenarios"
    a16max = _by(table, "A16 SELFISH MaxS max")
    assert a16max.verdict == "not measured: reduced run (30 of 1,500 scenarios)"
    assert a16max.ours  # ours is still shown
    assert ENTRIES <= {r.ref for r in table.rows}


def test_a_direction_is_judged_against_its_noise() -> None:
    """SELFISH ORDER's SSCT median below SELFISH's: far beyond the noise it matches; at
    the same median (a margin of noise only) a reduced run does not decide it."""
    clear = ptg_table(fake_rows(10, selfish_order_ssct=1.0))
    row = _by(clear, "SELFISH ORDER SSCT median below SELFISH's")
    assert row.verdict == "match" and row.tolerance.startswith("noise ±")
    tie = ptg_table(fake_rows(10, selfish_order_ssct=2.0))
    row = _by(tie, "SELFISH ORDER SSCT median below SELFISH's")
    assert row.verdict == "not measured: reduced run (30 of 1,500 scenarios)"


def test_too_few_scenarios_per_population_have_no_noise() -> None:
    table = ptg_table(fake_rows(2))
    row = _by(table, "A2 SELFISH ORDER SSCT Q3")
    assert row.verdict.startswith("not measured: reduced run (6 of 1,500 scenarios): under 5")


def test_calibration_rows_are_not_counted_and_budget_makes_them_so() -> None:
    rows = fake_rows(10)
    table = ptg_table(rows)
    counts = table.counts()
    cal = sum(r.role == "calibration" for r in table.rows)
    assert counts["calibration"] == cal >= 76 + 5  # Table 2 chosen reading and A7
    assert counts["rows"] == len(table.rows) - cal
    fitted = ptg_table(rows, "budget:0.65")
    a9 = _by(fitted, "A9 scenarios where a CRA algorithm gives a PTG a stretch < 1")
    assert a9.role == "calibration" and "fitted to A9 (decision 170)" in a9.note
    assert _by(fitted, "Table 1 gdx processors").role == "validation"  # no schedule


def test_literal_gaps_apply_only_under_the_literal_rule() -> None:
    rows = fake_rows(100, bound_scale=2.0)
    lit = _by(ptg_table(rows, "literal"), "A10 CAFM CRA Cmax median")
    other = _by(ptg_table(rows, "none"), "A10 CAFM CRA Cmax median")
    assert lit.decision == 341 and other.decision == 598  # the seven rules (decision 598)


def test_at_the_seed_s_size_a_direction_within_its_noise_is_undetermined() -> None:
    """1,500 scenarios: SELFISH ORDER's SSCT drawn like SELFISH's, so the margin of
    "SELFISH ORDER below SELFISH" is noise only; the extremes are judged."""
    table = ptg_table(fake_rows(500, selfish_order_ssct=2.0))
    assert table.size is not None and not table.size.reduced
    row = _by(table, "SELFISH ORDER SSCT median below SELFISH's")
    assert row.verdict == "undetermined", (row.ours, row.tolerance)
    a16max = _by(table, "A16 SELFISH MaxS max")
    assert not a16max.verdict.startswith("not measured")


def _lines(cite: str) -> list[int]:
    """``"004 L572, L641-L642"`` -> [572, 641, 642]."""
    out: list[int] = []
    for a, b in re.findall(r"L(\d+)(?:-L?(\d+))?", cite):
        out.extend(range(int(a), int(b or a) + 1))
    return out


#: rows whose seed value is derived, not printed: a ratio of two printed values, a count
#: or a reading declared by decision 591
DERIVED = ("SCHED", "scheduling time / SELFISH's", "CAFM without the moldable",
           "A15 ", "A12 ", "A25 ", "largest d", "random PTGs", "FFT PTGs", "Strassen PTGs",
           "Table 1 ", "SELFISH WEIGHT SSCT rank differences")


def test_every_printed_value_is_on_the_lines_its_row_cites() -> None:
    from tests.shared_data import seed_text

    text = seed_text("004").read_text(encoding="utf-8").splitlines()
    checked = 0
    for r in ptg_table(fake_rows(10)).rows:
        lines = _lines(r.seed_line)
        assert lines and max(lines) <= len(text), (r.figure, r.seed_line)
        seed = r.numbers.get("seed")
        if not isinstance(seed, float) or seed == 0 or r.figure.startswith(DERIVED) or any(
                d in r.figure for d in DERIVED):
            continue
        got = " ".join(text[i - 1] for i in lines)
        seed = abs(seed)  # "lower by 0.05" [004 L581]
        forms = {f"{seed:g}", f"{seed:.2f}", f"{seed:.1f}", f"{seed:.3f}"}
        assert any(f in got for f in forms), (r.figure, r.seed_line, seed)
        checked += 1
    assert checked >= 150  # the 152 Table 2 cells among them


def test_seed_table2_recount() -> None:
    """[004 L733]: every value above 75 %, 68 of 76 at least 90 %."""
    vals = [v for row in SEED_TABLE2.values() for v in row]
    assert len(vals) == 76 and min(vals) == 75.62
    assert sum(v >= 90 for v in vals) == 68


def test_set_up_facts_that_cannot_fail_hold_by_construction() -> None:
    """The registry's 19 and the generator's bounds on d hold by construction; the
    simulator is not run; the run's size echoes --scenarios: not measured when reduced."""
    table = ptg_table(fake_rows(10))
    algs = _by(table, "algorithms compared")
    assert algs.verdict.startswith("holds by construction: the run compares the registry")
    sim = _by(table, "simulator")
    assert sim.verdict.startswith("not measured: SimGrid 3.3.3 is not run")
    d = [r for r in table.rows if r.ref == "004-S-datasize"]
    assert [r.seed_value for r in d] == ["4M–121M", "4M–121M"]
    assert all(r.kind == "holds by construction" for r in d)
    assert [r.ours for r in d] == ["4194304", "104857600"]
    assert _by(table, "scenarios").verdict.startswith("not measured: reduced run (30 of")


def test_a_published_range_over_several_algorithms_is_one_joint_row() -> None:
    """"ranges from 17.0 % (C4) to 39.8 % (CAFM CRA WEIGHT)" [004 L600-L601]: one row over
    the 19, no tolerance; A7's 7.5-42.4 % likewise over the 17 others (calibration)."""
    for n in (10, 500):
        table = ptg_table(fake_rows(n))
        a13 = [r for r in table.rows if r.ref == "004-L600" and "mean" not in r.figure]
        assert len(a13) == 1 and a13[0].seed_value == "17.0–39.8 %"
        assert a13[0].tolerance == "none" and a13[0].role == "validation"
        assert a13[0].ours.endswith("over 19 lines")
        a7 = [r for r in table.rows if r.ref == "004-L554" and "within" in r.figure]
        assert len(a7) == 1 and a7[0].role == "calibration"
        assert a7[0].ours.endswith("over 17 lines") and a7[0].seed_value == "7.5–42.4 %"
    assert not a13[0].kind.startswith("not measured")  # 1,500 scenarios: judged, no slack
    assert not any("smallest of the others" in r.figure or "A13 Cmax population median "
                   "difference, largest" in r.figure for r in table.rows)


def test_a_sentence_that_prints_numbers_has_their_rows() -> None:
    table = ptg_table(fake_rows(10))
    seeds = {ref: sorted(r.numbers["seed"] for r in table.rows if r.ref == ref
                         and r.numbers.get("seed") is not None)
             for ref in ("004-L573", "004-L574", "004-L618", "004-L643", "004-L658",
                         "004-L659", "004-L641", "004-L580")}
    assert seeds["004-L573"] == [0.96, 1.17, 1.71, 2.46, 3.75]
    assert seeds["004-L574"] == [1.71, 7.69]
    assert seeds["004-L618"] == [3.71, 249.35, 404.73, 1310.69]
    assert seeds["004-L643"] == [1.79, 2.38, 5.23, 42.18]
    assert seeds["004-L658"] == [1.79, 2.40, 5.23]
    assert seeds["004-L659"] == [2.43, 4.18, 21.09]
    assert seeds["004-L641"] == [17.49, 487.69]
    assert seeds["004-L580"] == [-0.39, -0.05]
    # the figure keeps its own box statistics
    assert any(r.ref == "004-F3" and r.numbers.get("seed") == 249.35 for r in table.rows)


def test_printed_values_keep_the_seed_s_digits() -> None:
    table = ptg_table(fake_rows(10))
    assert _by(table, "A10 CAFM CRA Cmax max").seed_value == "1310.69 s"
    assert _by(table, "A10 CAFM CRA Cmax median").seed_value == "249.35 s"
    cell = "Table 2 CRA NDAGS WEIGHT grillon (busy area / (P Cmax), the text's reading)"
    assert _by(table, cell).seed_value == "98.146 %"


def test_every_difference_names_its_decision_and_readings() -> None:
    """Every ``differs: not reproduced`` row cites a decision and how many readings it
    tried, at a reduced size and at the seed's."""
    for n in (10, 500):
        for r in ptg_table(fake_rows(n, bound_scale=2.0)).rows:
            if r.kind == "differs: not reproduced":
                assert re.search(r"\(decision \d+: \d+ readings? tried\)", r.verdict), (
                    r.figure, r.verdict)


def test_a9_says_what_it_reads() -> None:
    row = _by(ptg_table(fake_rows(10)), "A9 scenarios where a CRA algorithm gives a PTG a "
              "stretch < 1")
    assert row.note.startswith("the seed's quantity as written: the share of scenarios")
    assert "per (scenario, CRA algorithm) pair" in row.note


def _noise_every_resample(t: dict[str, Any], resamples: int, seed: int = 0
                          ) -> dict[str, list[Any]]:
    """Each resample's figures computed afresh (no resample reused), in draw order."""
    from lpsched.ptg.reproduce import _figures, _resample_picks, _resample_rows, _scenario_rows

    rows_of = _scenario_rows(t)
    draws: dict[str, list[Any]] = {}
    for pick in _resample_picks(t, resamples, seed):
        for k, v in _figures(_resample_rows(t, rows_of, pick)).items():
            draws.setdefault(k, []).append(v)
    return draws


@pytest.mark.parametrize("per_class", [1, 2])
def test_a_resample_drawn_again_gives_the_noise_of_every_resample_computed(per_class) -> None:
    """With a few scenarios most resamples repeat; reusing their figures changes nothing."""
    from lpsched.ptg.reproduce import _table, reduced_noise

    t = _table(fake_rows(per_class, seed=3))
    noise = reduced_noise(t, resamples=40)
    draws = _noise_every_resample(t, 40)
    assert set(draws) == set(noise["interval"]) | set(noise["freq"])
    for k, vals in draws.items():
        if k in noise["interval"]:
            assert noise["interval"][k] == [float(np.quantile(vals, 0.025)),
                                            float(np.quantile(vals, 0.975))]
