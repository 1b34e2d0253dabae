"""The batch seed-vs-ours rows under the one rule of lpsched.core.fidelity: a direction
within its paired noise is undetermined and never a match, a calibration row is not
counted, an extreme over a reduced run is not measured, a range the seed states for
several lines is one row, rows that cannot fail say so, and the inputs that depart from
the seed's are setup rows."""

from __future__ import annotations

import numpy as np
import pytest

from lpsched.batch.fidelity import vs_seed
from lpsched.report.manifest import manifest

CH4 = ("basic", "becont-ff", "cont-ff", "beloc", "loc")
CH5 = ("basic", "becont", "beloc", "beplat", "cont", "loc", "plat")
LINES = [("contiguous", 0), *[("quasi-contiguous", q) for q in (10, 20, 30, 40)]]


def ch4_rows(n: int, cont: float = 1.05, spread: float = 0.02) -> list[dict]:
    """``n`` instances: best-effort rules exactly basic's makespan (the count-profile
    planner), forced contiguous ``cont`` times basic's with per-instance noise."""
    rng = np.random.default_rng(1)
    out = []
    for s in range(n):
        base = float(rng.uniform(90, 110))
        for a in CH4:
            m = base * (cont + rng.normal(0, spread) if a == "cont-ff" else 1.0)
            out.append({"seed": s, "alloc": a, "jobs": 300, "makespan": m,
                        "contiguous_jobs": 0.9 if a in ("cont-ff", "becont-ff", "loc") else .5,
                        "local_jobs": 0.95 if a in ("beloc", "loc") else 0.6,
                        "locality_ratio": 1.1 if a in ("beloc", "loc") else 1.3})
    return out


def ch4_cells(n: int) -> list[list]:
    return [["CEA-Curie-2011-2.1-cln.swf.gz", s, 300, 512, 16, a] for s in range(n)
            for a in CH4]


def ch5_rows(n: int, plat: str, beloc: float, noise: float) -> list[dict]:
    """``n`` instances of ``plat``: every variant 0.9 of basic's sum flow, best-effort
    local ``beloc`` of it with per-instance noise (standard deviation ``noise``)."""
    rng = np.random.default_rng(2)
    out = []
    for s in range(n):
        base = float(rng.uniform(900, 1100))
        for a in CH5:
            f = 1.0 if a == "basic" else beloc + rng.normal(0, noise) if a == "beloc" else .9
            out.append({"seed": s, "alloc": a, "jobs": 100, "platform": plat,
                        "sum_flow": base * f, "sum_stretch": base * f,
                        "contiguity_factor": f, "locality_factor": f,
                        "platform_level_factor": f, "success_rate": 2 - f})
    return out


def topo_rows(trace: str, evens: dict, jobs: int = 1000,
              grid: tuple = (0.0, 10.0, 20.0, 30.0, 40.0, 50.0)) -> list[dict]:
    """Seed 001 rows whose lines break even where ``evens[(policy, line)]`` says (the
    default 20 %): a line's total time is 100 (1 + (e − s)/100) beside non-contiguous's
    100, its wait 60 % of it."""
    out = []
    for p in ("fcfs", "easy"):
        out.append({"trace": trace, "policy": p, "alloc": "basic", "qct": 0, "speedup": 0.0,
                    "jobs": jobs, "mean_wait_min": 10.0, "mean_total_min": 100.0})
        for alloc, q in LINES:
            line = "contiguous" if not q else f"quasi({q})"
            e = evens.get((p, line), 20.0)
            for s in grid:
                total = 100.0 * (1 + (e - s) / 100)
                out.append({"trace": trace, "policy": p, "alloc": alloc, "qct": q,
                            "speedup": s, "jobs": jobs, "mean_wait_min": 0.6 * total,
                            "mean_total_min": total})
    return out


def topo_cells(trace: str, limit: int) -> list[list]:
    """The cells' keys as ``topology_cells`` builds them (EASY with the seed's kill)."""
    return [[trace, limit, 4, p, a, q, 0.0, *([None, "kill-advanced"] if p == "easy" else [])]
            for p in ("fcfs", "easy") for a, q in [("basic", 0), *LINES]]


def by_ref(table, ref: str) -> list:
    return [r for r in table.rows if r.ref == ref]


@pytest.mark.parametrize("experiment,seed", [("contiguity", "000"),
                                             ("platform-level", "000"),
                                             ("topology-aware", "001")])
def test_every_entry_is_a_row_of_an_empty_store_not_measured(experiment, seed):
    table = vs_seed(experiment, [], [])
    wanted = {e.id for e in manifest(seed) if e.experiment == experiment}
    assert wanted <= {r.ref for r in table.rows}
    assert all(r.kind == "not measured" for r in table.rows)
    assert all(r.source and r.seed_line.startswith(seed) for r in table.rows)
    sources = {e.id: e.source for e in manifest(seed)}
    assert all(r.source == sources[r.ref] for r in table.rows if r.ref), experiment


def test_ch4_best_effort_rows_hold_by_construction_and_means_are_calibration():
    table = vs_seed("contiguity", ch4_rows(512), ch4_cells(512))
    f47 = by_ref(table, "000-F4.7")[0]
    assert f47.verdict.startswith("holds by construction: the count-profile planner")
    assert "most points on y = x, not all" in f47.note
    means = by_ref(table, "000-L2938") + by_ref(table, "000-L2950")
    assert [r.role for r in means] == ["calibration", "calibration"]
    counts = table.counts()
    assert counts["calibration"] == sum(r.role == "calibration" for r in table.rows) >= 2
    assert counts["rows"] == sum(r.role == "validation" for r in table.rows)
    cont = by_ref(table, "000-L2950")[0]
    assert cont.kind == "differs: not reproduced" and "274" in cont.verdict


def test_ch4_reduced_run_does_not_judge_a_tail_count_nor_a_wide_mean():
    table = vs_seed("contiguity", ch4_rows(8, spread=0.2), ch4_cells(8))
    assert table.size is not None and table.size.label() == "8 of 512 instances"
    for r in by_ref(table, "000-L3037"):  # shares within 2 %: a tail count
        if r.figure.startswith("forced local"):
            assert r.verdict == "not measured: reduced run (8 of 512 instances)"
        else:  # best-effort rules under the count-profile planner: judged at any size
            assert r.kind == "holds by construction", r
    assert by_ref(table, "000-L2950")[0].verdict.startswith("not measured: reduced run")


def test_ch4_one_instance_is_never_judged():
    table = vs_seed("contiguity", ch4_rows(1), ch4_cells(1))
    measured = [r for r in table.rows if r.ref in ("000-L2950", "000-F4.8", "000-L2982")]
    assert measured and all(r.verdict.startswith("not measured: one instance") for r in
                            measured)


def test_ch5_a_direction_within_its_paired_noise_is_undetermined_never_a_match():
    """SDSC Blue best-effort local at 0.992 of basic where the seed says > 1 [L3779]."""
    noisy = vs_seed("platform-level", ch5_rows(30, "sdsc_blue", 0.992, 0.05), [])
    row = next(r for r in noisy.rows if r.figure == "sdsc_blue: beloc sum flow / basic's")
    assert row.seed_value == "> 1" and row.kind == "undetermined", row
    assert row.tolerance.startswith("noise ±")
    tight = vs_seed("platform-level", ch5_rows(30, "sdsc_blue", 0.992, 0.0005), [])
    row = next(r for r in tight.rows if r.figure == "sdsc_blue: beloc sum flow / basic's")
    assert row.kind.startswith("differs"), row


def test_ch5_job_counts_are_calibration_and_machines_setup_rows():
    table = vs_seed("platform-level", ch5_rows(30, "kth_sp2", 0.9, 0.01), [])
    t52 = by_ref(table, "000-T5.2")
    jobs = [r for r in t52 if "jobs of the trace" in r.figure]
    assert len(jobs) == 6 and all(r.role == "calibration" for r in jobs)
    assert any("processors" in r.figure for r in t52)


def test_seed001_joint_range_is_one_row_over_every_line_with_the_grid():
    evens = {("fcfs", "contiguous"): 40.0}  # one line outside LLNL's 5-30 %
    table = vs_seed("topology-aware", topo_rows("llnl_thunder", evens),
                    topo_cells("LLNL-Thunder-2007-1.1-cln.swf.gz", 0))
    rows = by_ref(table, "001-L158b")
    assert len(rows) == 1
    assert rows[0].kind.startswith("differs") and "fcfs contiguous" in rows[0].note
    assert rows[0].ours.endswith("over 10 lines")
    ok = vs_seed("topology-aware", topo_rows("llnl_thunder", {}),
                 topo_cells("LLNL-Thunder-2007-1.1-cln.swf.gz", 0))
    assert by_ref(ok, "001-L158b")[0].verdict == "match"


def test_seed001_grid_without_a_value_inside_the_range_says_so():
    """A grid of 0, 20, 40: SDSC's 15-25 % holds 20; HPC2N at 25 % on a 0/30 grid."""
    rows = topo_rows("hpc2n", {}, grid=(0.0, 30.0))
    table = vs_seed("topology-aware", rows, topo_cells("HPC2N-2002-2.1-cln.swf.gz", 0))
    row = by_ref(table, "001-L172b")[0]
    assert row.verdict == "match" and "no value of the grid lies inside" in row.note


def test_seed001_extremes_are_not_judged_on_a_limited_run():
    table = vs_seed("topology-aware", topo_rows("llnl_thunder", {}),
                    topo_cells("LLNL-Thunder-2007-1.1-cln.swf.gz", 1000))
    assert table.size is not None and table.size.reduced
    for ref in ("001-L135a", "001-L186b"):
        assert by_ref(table, ref)[0].verdict.startswith("not measured: reduced run"), ref


def test_seed001_hpc2n_cleaned_log_is_a_setup_row_that_differs():
    table = vs_seed("topology-aware", topo_rows("hpc2n", {}, jobs=202_876),
                    topo_cells("HPC2N-2002-2.1-cln.swf.gz", 0))
    row = next(r for r in by_ref(table, "001-S-hpc2n") if "jobs" in r.figure)
    assert row.seed_value == "527371" and row.ours == "202876"
    assert row.verdict == "differs: cause measured (decision 268)"
    assert "cleaned" in row.evidence
    kill = by_ref(table, "001-S-kill")[0]
    assert kill.kind == "holds by construction" and "--blocked-head wait" not in row.note


def test_seed001_fig2_needs_a_network_simulator():
    table = vs_seed("topology-aware", topo_rows("llnl_thunder", {}), [])
    for ref in ("001-F2", "001-L133a", "001-L133b", "001-S-insee"):
        assert "INSEE" in by_ref(table, ref)[0].verdict, ref


def test_settings_the_tool_fixes_hold_by_construction_and_measured_facts_are_values():
    table = vs_seed("contiguity", ch4_rows(8), ch4_cells(8))
    for ref in ("000-S-ch4-machine", "000-S-ch4-cluster", "000-S-ch4-jobs",
                "000-S-ch4-algorithms", "000-S-ch4-curie"):
        assert by_ref(table, ref)[0].kind == "holds by construction", ref
    other = vs_seed("contiguity", ch4_rows(8), [[*c[:3], 256, *c[4:]] for c in ch4_cells(8)])
    machine = by_ref(other, "000-S-ch4-machine")[0]
    assert machine.kind.startswith("differs") and machine.ours == "256 processors"


def test_a_restatement_carries_the_verdict_of_the_row_it_restates():
    table = vs_seed("contiguity", ch4_rows(64, spread=0.01), ch4_cells(64))
    judged = by_ref(table, "000-F4.8")[0]
    for ref in ("000-L2948", "000-L2960"):
        row = by_ref(table, ref)[0]
        assert row.verdict == judged.verdict and "restates 000-F4.8" in row.note, row
    joint_row = by_ref(table, "000-L30")[0]  # restates 000-L2957 and 000-L3039
    worst = min((r for r in table.rows if r.ref in ("000-L2957", "000-L3039")),
                key=lambda r: ("differs" not in r.kind, r.kind != "not measured"))
    assert joint_row.kind == worst.kind
    assert not any(r.verdict.startswith("not measured: restates") for r in table.rows)


def test_a_degenerate_zero_standard_error_is_no_noise_estimate():
    from lpsched.batch.fidelity_rows import known_noise, paired

    assert known_noise(0.0) is None and known_noise(None) is None
    assert known_noise(0.5, scale=2.0) == 0.25
    d, se, n = paired({0: 2.0, 1: 3.0}, {0: 1.0, 1: 2.0})  # both differences exactly 1
    assert (d, se, n) == (1.0, None, 2)


def test_a_difference_without_a_decision_says_so():
    from lpsched.batch.fidelity_rows import UNEXPLAINED, unexplained
    from lpsched.core.fidelity import Gap, compare

    bare = compare("x", "000 L1", 1.0, 2.0, tolerance=0.1)
    cited = compare("x", "000 L1", 1.0, 2.0, tolerance=0.1, gap=Gap(274, readings=9))
    out = unexplained([bare, cited])
    assert UNEXPLAINED in out[0].note and UNEXPLAINED not in out[1].note


def test_ch4_differing_rows_cite_decision_274():
    table = vs_seed("contiguity", ch4_rows(64), ch4_cells(64))
    differs = [r for r in table.rows if r.kind.startswith("differs")]
    assert differs and all(r.decision == 274 for r in differs), differs


def test_seed001_a_cut_log_never_judges_hpc2n_break_even():
    cut = vs_seed("topology-aware", topo_rows("hpc2n", {}, jobs=2000),
                  topo_cells("HPC2N-2002-2.1-cln.swf.gz", 2000))
    row = by_ref(cut, "001-L172b")[0]
    assert row.verdict.startswith("not measured: reduced run"), row
    whole = vs_seed("topology-aware", topo_rows("hpc2n", {}, jobs=202_876),
                    topo_cells("HPC2N-2002-2.1-cln.swf.gz", 0))
    assert by_ref(whole, "001-L172b")[0].kind == "match"
