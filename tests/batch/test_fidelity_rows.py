"""The batch seed-vs-ours rows: roles as decisions 272/274 declare them, ch. 5's seed lines
as seed 000's text says each direction, and reduced runs that say so (once)."""

from lpsched.batch.fidelity import contiguity_table, platform_table, topology_table
from tests.shared_data import find_seed

SEED = find_seed("000")


def ch4(instances: int) -> dict:
    return {a: {"instances": instances, "mean_deviation": d, "within_2pct": w,
                "local_jobs": loc, "contiguous_jobs": 1.0}
            for a, d, w, loc in (("basic", 0, 1, .54), ("becont-ff", 0, 1, .55),
                                 ("cont-ff", .0478, .566, .67), ("beloc", 0, 1, .7685),
                                 ("loc", .0203, .8242, 1.0))}


def test_ch4_makespan_means_are_calibration_the_others_validation():
    rows = contiguity_table(ch4(512)).rows
    assert [r.role for r in rows] == ["calibration"] * 2 + ["validation"] * (len(rows) - 2)
    assert rows[0].seed_line == "000 L2940" and rows[1].seed_line == "000 L2951"


def test_a_reduced_ch4_run_cites_no_decision_and_says_why():
    full = contiguity_table(ch4(512)).rows
    assert full[1].verdict == "differs: explained by decision 274"
    assert "reduced" not in full[1].note
    small = contiguity_table(ch4(4)).rows
    assert small[1].verdict == "differs"
    assert all("reduced run (4 of the seed's 512 instances)" in r.note for r in small[:6])
    named = contiguity_table(ch4(512), reduced="40 jobs per instance, the seed's 300").rows
    assert named[1].verdict == "differs" and "40 jobs per instance" in named[1].note


def test_ch5_rows_cite_the_sentence_of_their_direction():
    summ = {a: {"sum_flow": 0.9, "instances": 30} for a in
            ("becont", "beloc", "beplat", "cont", "loc", "plat")}
    rows = {r.figure: r for r in platform_table({"sdsc_blue": summ, "hpc2n": summ}, {}).rows}
    assert rows["sdsc_blue: beloc sum flow / basic's"].seed_line == "000 L3779–L3780"
    assert rows["sdsc_blue: becont sum flow / basic's"].seed_line == "000 L3779–L3781"
    assert rows["hpc2n: cont sum flow / basic's"].seed_line == "000 L3783–L3785"
    assert rows["sdsc_blue: plat sum flow / basic's"].seed_line == "000 L3786–L3787"
    assert rows["sdsc_blue: best variant by sum flow"].seed_line == "000 L3781–L3782"
    if SEED is not None:  # the cited lines say what the rows claim
        text = SEED.read_text(encoding="utf-8").splitlines()
        assert "exception of Best Effort Local" in text[3779 - 1]
        assert "SDSC Blue" in text[3780 - 1]
        assert "Forced Contiguous and" in text[3783 - 1] and "HPC2N" in text[3785 - 1]
        assert "forced variants present improved results" in text[3786 - 1]
        assert "Best Effort Platform shows the best results" in text[3782 - 1]


def test_reduced_ch5_and_seed001_runs_cite_no_decision():
    kth = {a: {"sum_flow": v, "instances": 30} for a, v in (
        ("becont", .983), ("beloc", .928), ("beplat", .906), ("cont", 1.213), ("loc", 1.018),
        ("plat", 1.045))}
    rows = {r.figure: r for r in platform_table({"kth_sp2": kth}, {}).rows}
    assert rows["kth_sp2: plat sum flow / basic's"].verdict == \
        "differs: explained by decision 276"
    few = {a: {**v, "instances": 5} for a, v in kth.items()}
    rows = {r.figure: r for r in platform_table({"kth_sp2": few}, {}).rows}
    assert rows["kth_sp2: plat sum flow / basic's"].verdict == "differs"
    assert "reduced run (5 of the seed's 30 instances)" in \
        rows["kth_sp2: plat sum flow / basic's"].note
    summ = {"llnl_thunder": [
        {"policy": "fcfs", "alloc": "contiguous", "break_even_speedup": 45.0},
        {"policy": "easy", "alloc": "contiguous", "break_even_speedup": 15.0}]}
    assert topology_table(summ, {}).rows[0].verdict == "differs: explained by decision 275"
    cut = topology_table(summ, {}, reduced="the first 5000 jobs of each trace (--limit)")
    assert cut.rows[0].verdict == "differs" and "first 5000 jobs" in cut.rows[0].note


def test_a_reduced_ch5_note_names_the_instances_once():
    """``--instances 3``: the command's note and the table's count do not both say "3 of
    the seed's 30 instances"."""
    summ = {"curie": {a: {"sum_flow": 0.9, "instances": 3}
                      for a in ("becont", "beloc", "beplat", "cont", "loc", "plat")}}
    rows = platform_table(summ, {}, reduced="3 of the seed's 30 instances").rows
    note = next(r.note for r in rows if r.figure == "curie: plat sum flow / basic's")
    assert note.count("3 of the seed's 30 instances") == 1
    rows = platform_table(summ, {}).rows
    note = next(r.note for r in rows if r.figure == "curie: plat sum flow / basic's")
    assert "reduced run (3 of the seed's 30 instances)" in note
