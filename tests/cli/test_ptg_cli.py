"""``lpsched ptg generate | schedule`` and ``lpsched reproduce ptg`` as users run them
(subprocess of the installed console script)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_cli_subprocess import lpsched, one_json_object

KEYS = {"algorithm", "valid", "makespan", "scaled_sum_completion", "max_stretch",
        "unfairness", "utilisation", "lower_bounds", "seconds"}


@pytest.fixture(scope="module")
def graphs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("ptg")
    g, f, s = d / "g.json", d / "f.json", d / "s.dot"
    p = lpsched("ptg", "generate", "--class", "random", "--n", "20", "--fat", "0.5",
                "--density", "0.2", "--regular", "0.8", "--jump", "2", "--seed", "4",
                "-o", str(g))
    assert p.returncode == 0 and p.stdout == "" and "20 tasks" in p.stderr
    assert lpsched("ptg", "generate", "--class", "fft", "--points", "8", "--seed", "1",
                   "-o", str(f)).returncode == 0
    assert lpsched("ptg", "generate", "--class", "strassen", "-o", str(s)).returncode == 0
    return {"g": g, "f": f, "s": s, "dir": d}


def test_generate_files(graphs: dict[str, Path]) -> None:
    data = json.loads(graphs["f"].read_text())
    assert len(data["tasks"]) == 39 and all({"id", "work", "alpha"} <= set(t)
                                            for t in data["tasks"])
    assert graphs["s"].read_text().startswith("digraph")
    again = lpsched("ptg", "generate", "--class", "random", "--n", "20", "--fat", "0.5",
                    "--density", "0.2", "--regular", "0.8", "--jump", "2", "--seed", "4")
    assert json.loads(again.stdout) == json.loads(graphs["g"].read_text())  # seeded


def test_schedule_json_one_algorithm(graphs: dict[str, Path]) -> None:
    gantt = graphs["dir"] / "out.png"
    args = ["ptg", "schedule", str(graphs["g"]), str(graphs["f"]), "--cluster", "gdx",
            "--algorithm", "cafm-k-shelves", "--json"]
    try:
        import matplotlib  # noqa: F401
        args += ["--gantt", str(gantt)]
    except ImportError:
        gantt = None
    doc = one_json_object(lpsched(*args))
    assert KEYS <= set(doc) and doc["algorithm"] == "cafm-k-shelves" and doc["valid"]
    lb = doc["lower_bounds"]
    assert lb["makespan"]["bound"] in ("lp", "classical")
    assert lb["makespan"]["value"] <= doc["makespan"]
    assert lb["scaled_sum_completion"]["value"] <= doc["scaled_sum_completion"]
    if gantt is not None:
        assert gantt.stat().st_size > 1000


def test_schedule_all_table(graphs: dict[str, Path]) -> None:
    p = lpsched("ptg", "schedule", str(graphs["g"]), str(graphs["f"]), str(graphs["s"]),
                "--cluster", "grillon", "--algorithm", "all", "--table")
    assert p.returncode == 0 and p.stderr == ""
    lines = p.stdout.strip().splitlines()
    assert len(lines) == 21 and lines[0].startswith("algorithm")
    assert lines[0].split()[-2:] == ["shared", "(s)"]
    rows = lines[1:20]
    assert [ln.split()[0] for ln in rows][-1] == "cafm-k-shelves"
    assert all(float(ln.split()[2]) >= 1 - 1e-9 for ln in rows)  # Cmax/LB >= 1
    shared = {ln.split()[0]: float(ln.split()[-1]) for ln in rows}
    assert shared["cafm-k-shelves"] == shared["cafm-cra"] > shared["selfish"]  # spec shown
    assert lines[20].startswith("lower bounds on grillon") and "every schedule validated" \
        in lines[20]  # the issue's "the 19, validated"


def test_schedule_table_is_the_frame_of_every_algorithm(graphs: dict[str, Path]) -> None:
    """The printed table of ``--algorithm all`` holds, rounded as printed, the rows of
    :func:`lpsched.ptg.comparison.compare_algorithms` that its ``to_frame()`` gives (the
    timings aside: they are measured again)."""
    pytest.importorskip("pandas")
    from lpsched.ptg.comparison import TABLE_COLUMNS, compare_algorithms
    from lpsched.ptg.io import load_ptg
    from lpsched.ptg.model import get_cluster
    from lpsched.ptg.problem import Problem

    files = [str(graphs["g"]), str(graphs["f"])]
    p = lpsched("ptg", "schedule", *files, "--cluster", "chti", "--algorithm", "all",
                "--table")
    assert p.returncode == 0 and p.stderr == ""
    lines = p.stdout.strip().splitlines()
    cluster = get_cluster("chti")
    comparison = compare_algorithms(Problem([load_ptg(f, cluster.speed) for f in files],
                                            cluster))
    frame = comparison.to_frame()
    assert list(frame.columns) == [
        "algorithm", "valid", "makespan", "scaled_sum_completion", "max_stretch",
        "utilisation", "seconds", "shared_seconds", "makespan_bound", "makespan_ratio",
        "ssct_bound", "ssct_ratio"]
    assert set(TABLE_COLUMNS) <= set(frame.columns) and len(frame) == 19
    formats = {"makespan": "{:.2f}", "makespan_ratio": "{:.3f}",
               "scaled_sum_completion": "{:.3f}", "ssct_ratio": "{:.3f}",
               "max_stretch": "{:.3f}", "utilisation": "{:.2f}"}
    for line, (_, row) in zip(lines[1:20], frame.iterrows(), strict=True):
        printed = line.split()
        assert printed[0] == row["algorithm"]
        for field, value in zip(TABLE_COLUMNS[1:7], printed[1:7], strict=True):
            scale = 100 if field == "utilisation" else 1
            assert value == formats[field].format(scale * row[field]), (line, field)
    assert bool(frame["valid"].all()) and "every schedule validated" in lines[20]
    b = comparison.bounds
    assert f"Cmax >= {b.makespan:.2f} s" in lines[20] and f"SSCT >= {b.ssct:.3f}" in lines[20]


def test_schedule_all_json(graphs: dict[str, Path]) -> None:
    doc = one_json_object(lpsched("ptg", "schedule", str(graphs["f"]), "--cluster", "chti",
                                  "--json"))
    assert len(doc["results"]) == 19 and all(KEYS <= set(r) for r in doc["results"])
    assert all(r["valid"] is True and r["shared_seconds"] >= r["shared"]["standalone_hcpa"]
               for r in doc["results"])
    cafm = [r for r in doc["results"] if r["algorithm"].startswith("cafm")]
    assert len({r["shared"]["moldable_spec"] for r in cafm}) == 1  # every CAFM shows it


@pytest.mark.parametrize(("content", "words"), [
    ('{"tasks": [{"id": "a", "work": 1}, {"id": "b", "work": 1}], '
     '"edges": [["a", "b"], ["b", "a"]]}', "cycle"),
    ('{"tasks": [{"id": "a", "work": 1, "alpha": 2}]}', "tasks[0].alpha"),
    ('{"tasks": [{"id": "a", "work": -1}]}', "tasks[0].work"),
    ('{"tasks": [{"id": "a", "work": 1}], "edges": [["a", "zz"]]}', "edges[0]"),
    ('{"tasks": [{"id": "a", "work": 1}], "edges": [[["x"], "a"]]}', "edges[0]"),
    ("not json", "bad.json"),
])
def test_bad_input_exit_2(tmp_path: Path, content: str, words: str) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    p = lpsched("ptg", "schedule", str(bad), "--cluster", "chti", "--json")
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.startswith("lpsched: error:") and p.stderr.count("\n") == 1
    assert words in p.stderr


@pytest.mark.parametrize("alpha", [1.0, 1 - 1e-12])
def test_alpha_one_schedules_with_its_lp_bound(tmp_path: Path, alpha: float) -> None:
    g = tmp_path / "a.json"
    g.write_text(json.dumps({"tasks": [{"id": "a", "work": 1e10, "alpha": alpha},
                                       {"id": "b", "work": 2e10, "alpha": 0.1}],
                             "edges": [["a", "b"]]}))
    doc = one_json_object(lpsched("ptg", "schedule", str(g), "--cluster", "gdx",
                                  "--algorithm", "selfish", "--json"))
    assert doc["valid"] is True and doc["lower_bounds"]["makespan"]["lp"] <= doc["makespan"]


def test_unknown_cluster_and_options(graphs: dict[str, Path]) -> None:
    p = lpsched("ptg", "schedule", str(graphs["g"]), "--cluster", "moon", "--json")
    assert p.returncode == 2 and "cluster" in p.stderr and p.stderr.count("\n") == 1
    p = lpsched("ptg", "generate", "--class", "fft", "--points", "6")
    assert p.returncode == 2 and "points" in p.stderr
    p = lpsched("ptg", "schedule", str(graphs["g"]), "--cluster", "chti", "--algorithm",
                "nope")
    assert p.returncode == 2


def test_reproduce_small(tmp_path: Path) -> None:
    out = tmp_path / "res"
    p = lpsched("reproduce", "ptg", "--scenarios", "2", "--out", str(out), "--quiet")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["scenarios"] == 2 and doc["bounds_hold"] is True
    assert len(doc["acceptance"]) == 7
    assert set(doc["targets"]) == {"A7", "A13"}  # population sensitivity beside the paper
    assert (out / "ptg.csv").read_text().count("\n") == 2 * 19 + 1
    assert json.loads((out / "ptg_summary.json").read_text())["scenarios"] == 2
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert doc["figures"] == []
    else:
        assert len(doc["figures"]) == 7 and all(Path(f).stat().st_size > 1000
                                                for f in doc["figures"])
    # the seed-vs-ours table: in the JSON, on stderr and in ptg_vs_seed.csv, every row of
    # seed 004's manifest, the reduced run said (decisions 590-596)
    table = doc["vs_seed"]
    assert table["size"] == {"n": 2, "seed_n": 1500, "unit": "scenarios"}
    figures = [r["figure"] for r in table["rows"]]
    assert "A16 SELFISH MaxS median" in figures
    assert "Table 2 CAFM CRA gdx (share of processors used, decision 340)" in figures
    a16 = next(r for r in table["rows"] if r["figure"] == "A16 SELFISH MaxS median")
    assert a16["verdict"].startswith("not measured: reduced run (2 of 1,500 scenarios)")
    roles = {r["figure"]: r["role"] for r in table["rows"]}
    assert roles["Table 2 SELFISH chti (share of processors used, decision 340)"] == \
        "calibration"
    assert roles["Table 2 SELFISH chti (busy area / (P Cmax), the text's reading)"] == \
        "validation"
    assert "A16 SELFISH MaxS median" in p.stderr
    assert "ptg vs seed, 2 of 1,500 scenarios:" in p.stderr
    lines = (out / "ptg_vs_seed.csv").read_text().splitlines()
    assert lines[0] == "ref,source,figure,seed_line,seed_value,ours,tolerance,verdict,role,note"
    assert len(lines) == len(figures) + 1 and doc["hcpa_bound"] == "literal"
    assert sum(line.startswith("004-T2,Table 2,") for line in lines) == 2 * 76
    again = lpsched("reproduce", "ptg", "--scenarios", "2", "--out", str(out), "--quiet")
    assert again.returncode == 0 and "0 scenarios computed now" in again.stderr
    assert (out / "ptg_vs_seed.csv").read_text().splitlines() == lines  # same table


def test_hcpa_bound_option(graphs: dict[str, Path]) -> None:
    """``--hcpa-bound`` reaches the problem (decision 336): the default is the improved HCPA
    as the seed writes it (``literal``), ``budget:0.65`` (the variant fitted to
    A9) and ``none`` (plain CPA) are named variants that change SELFISH's schedule on the
    random PTG; a bad bound is one error line, exit 2."""
    runs = {}
    for bound in (None, "none", "budget:0.65", "literal"):
        extra = [] if bound is None else ["--hcpa-bound", bound]
        out = one_json_object(lpsched("ptg", "schedule", str(graphs["g"]), str(graphs["f"]),
                                      "--cluster", "gdx", "--algorithm", "selfish",
                                      "--json", *extra))
        assert out["valid"] is True
        runs[bound] = (out["hcpa_bound"], out["makespan"])
    assert runs[None] == runs["literal"] and runs[None][0] == "literal"
    assert runs["none"][0] == "none" and runs["none"][1] != runs[None][1]
    assert runs["budget:0.65"][0] == "budget:0.65"
    assert runs["budget:0.65"][1] not in (runs[None][1], runs["none"][1])
    bad = lpsched("ptg", "schedule", str(graphs["g"]), "--cluster", "gdx", "--hcpa-bound",
                  "bogus:3")
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1
    assert "bogus" in bad.stderr


@pytest.mark.parametrize("typed", ["literal:0.5", "none:3", "literal:"])
def test_reproduce_refuses_a_value_after_literal_or_none(tmp_path: Path, typed: str) -> None:
    """Decision 416: ``literal`` and ``none`` take no value. ``literal:0.5`` would move the
    stopping test's budget silently while the table read the run as the literal rule, and
    ``none:3`` would drop its value; both are a usage error (exit 2, one line that echoes
    what was typed and names the accepted forms, the default first), before any scenario
    is computed."""
    out = tmp_path / "r"
    p = lpsched("reproduce", "ptg", "--scenarios", "1", "--jobs", "1", "--no-figures",
                "--hcpa-bound", typed, "--out", str(out))
    assert p.returncode == 2 and p.stdout == ""
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("lpsched: error: --hcpa-bound ")
    assert f"'{typed}'" in lines[0] and "takes no value" in lines[0]
    assert "literal (the default)" in lines[0] and "fraction:0.5" in lines[0]
    assert "invalid instance" not in lines[0] and not (out / "ptg.sqlite").exists()


def test_hcpa_bound_help_names_the_default_and_its_decision() -> None:
    """``--hcpa-bound``'s help names its default and the decision, not a spec label."""
    p = lpsched("reproduce", "ptg", "--help")
    assert p.returncode == 0
    text = " ".join(p.stdout.split())
    assert "default: literal" in text and "decision 336" in text and "DECIDE" not in text
    assert "the seed states a bound [L595-597] but not its value; none is added" in text


def test_errors_name_the_file(graphs: dict[str, Path], tmp_path: Path) -> None:
    """With several PTG files, an invalid one is named; a DOT file without task nodes says
    how to declare them."""
    data = json.loads(graphs["f"].read_text())
    data["tasks"][0]["alpha"] = 1.5
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    p = lpsched("ptg", "schedule", str(graphs["g"]), str(bad), "--cluster", "gdx",
                "--algorithm", "selfish")
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.count("\n") == 1 and f"{bad}: tasks[0].alpha = 1.5" in p.stderr
    edges = tmp_path / "edges.dot"
    edges.write_text('digraph { "a" -> "b"; }\n')
    p = lpsched("ptg", "schedule", str(edges), "--cluster", "gdx", "--algorithm", "selfish")
    assert p.returncode == 2 and p.stdout == "" and p.stderr.count("\n") == 1
    assert f"{edges}: no task node" in p.stderr and "work=" in p.stderr


def test_gantt_full_disk_keeps_old_file(graphs: dict[str, Path]) -> None:
    """Decision 346: ``--gantt`` is written through ``atomic_path``: when the
    disk fills (here a file-size limit of 2 kB, below any Gantt PNG), the command fails
    with a message and the previous file is left intact, never truncated."""
    pytest.importorskip("matplotlib")
    resource = pytest.importorskip("resource")
    import os
    import subprocess

    from tests.cli.test_cli_subprocess import LPSCHED

    old = graphs["dir"] / "keep.png"
    old.write_bytes(b"the previous chart")

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (2048, 2048))

    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    p = subprocess.run([LPSCHED, "ptg", "schedule", str(graphs["f"]), "--cluster", "chti",
                        "--algorithm", "selfish", "--no-lp", "--gantt", str(old)],
                       capture_output=True, text=True, timeout=300, env=env, check=False,
                       preexec_fn=limit)
    assert p.returncode != 0
    assert "Traceback" not in p.stderr and str(old.name) in p.stderr
    assert old.read_bytes() == b"the previous chart"
    assert not [f for f in graphs["dir"].iterdir() if f.name.startswith(".keep.")]
