"""Issue 31 at the installed ``lpsched`` command: ``plot box`` on a store with failed runs
(issue 28's reliability item), the load figures of ``plot load`` and ``reproduce cbs3m``'s
seed-vs-ours table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.cli.test_cli_subprocess import lpsched


def _store(folder: Path, rows: list[tuple[Any, dict[str, Any]]]) -> Path:
    from lpsched.bags import reproduce as exp
    from lpsched.core import ResultStore

    folder.mkdir(parents=True, exist_ok=True)
    store = ResultStore(folder / "cbs3m.sqlite")
    for cell, row in rows:
        store.add(exp.EXPERIMENT, cell, [row], exp.ROW_SCHEMA)
    store.close()
    return folder


def _row(seed: int, policy: str, status: str = "ok", value: float | None = 2.0,
         bound: float = 1.5) -> dict[str, Any]:
    from lpsched.bags.reproduce import METRICS

    metrics = dict.fromkeys(METRICS, value)
    return {"seed": seed, "policy": policy, "status": status,
            "reason": None if status == "ok" else "policy stopped (test)",
            "lp_bound": bound, **metrics}


def test_plot_box_counts_and_names_failed_rows_instead_of_crashing(tmp_path):
    """A store holding a legitimately failed row (status failed, metrics NULL, as
    ``reproduce cbs3m`` documents) used to crash with ``None / lp_bound`` (exit 3)."""
    rows = [((s, p, "simgrid", 12.5e6), _row(s, p)) for s in range(3)
            for p in ("fifo-mct", "cbs3m-edf-online")]
    rows.append(((3, "fifo-mct", "simgrid", 12.5e6), _row(3, "fifo-mct", "failed", None)))
    rows.append(((3, "cbs3m-edf-online", "simgrid", 12.5e6),
                 _row(3, "cbs3m-edf-online", "time_limit", None)))
    folder = _store(tmp_path / "res", rows)
    out = tmp_path / "box.png"
    proc = lpsched("plot", "box", str(folder), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    assert "2 run(s) that did not finish are not plotted" in proc.stderr
    assert "fifo-mct: 1" in proc.stderr and "cbs3m-edf-online: 1" in proc.stderr
    assert out.stat().st_size > 0


def test_reproduce_cbs3m_prints_the_seed_table_and_draws_the_figures(tmp_path):
    """``reproduce cbs3m`` on one MPI-profile instance (seconds): Tables 4-8, the CBS3M
    dispatchers side by side, Figures 5-10 (PNG and CSV) and the seed-vs-ours table, printed
    and written to cbs3m_vs_seed.csv; ``plot load`` redraws the figures from the store and
    their CSVs match the store's rows."""
    from lpsched.bags import reproduce as exp
    from lpsched.core import ResultStore

    out = tmp_path / "run"
    proc = lpsched("reproduce", "cbs3m", "--instances", "1", "--profile", "mpi", "--jobs", "1",
                   "--quiet", "--eager", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "Table 4 — max-stretch / LP optimum (1 instances)" in proc.stdout
    assert "CBS3M dispatchers (issue 31): lazy (spec §4.4) vs eager" in proc.stdout
    assert "Table 3 order" in proc.stdout and "003 L847-L863" in proc.stdout
    assert "cbs3m vs seed: " in proc.stdout
    assert (out / "cbs3m_vs_seed.csv").read_text().startswith("figure,seed_line,seed_value")
    for n, metric in ((5, "max_stretch"), *((exp.FIGURE_OF[m], m) for m in exp.METRICS)):
        assert (out / f"fig{n}_{metric}.png").stat().st_size > 0
        assert (out / f"fig{n}_{metric}.csv").exists()
    store = ResultStore(out / "cbs3m.sqlite")
    rows = exp.select(store.rows(exp.EXPERIMENT, exp.ROW_SCHEMA), "lazy")
    store.close()
    assert len(rows) == 18  # the seed's 18; the 4 eager rows are in the store beside them
    assert exp.read_curve_csv(out / "fig8_makespan.csv") == exp.load_curves(rows, "makespan")
    assert exp.read_curve_csv(out / "fig5_max_stretch.csv") == exp.figure5_rows(rows)

    again = tmp_path / "redrawn"
    proc = lpsched("plot", "load", str(out), "-o", str(again), "--figure5")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert sorted(proc.stdout.split()) == sorted(
        str(again / f"fig{n}_{m}.{ext}") for n, m in
        ((5, "max_stretch"), *((exp.FIGURE_OF[m], m) for m in exp.METRICS))
        for ext in ("csv", "png"))
    for metric in exp.METRICS:
        name = f"fig{exp.FIGURE_OF[metric]}_{metric}.csv"
        assert (again / name).read_text() == (out / name).read_text()


def test_plot_load_on_a_store_with_failed_rows(tmp_path):
    """Failed runs are counted and left out of the figures; the CSV behind each figure is
    the store's finished rows, binned (recomputed here from the rows)."""
    from lpsched.bags import reproduce as exp

    rows = [((s, p, "simgrid", 12.5e6), _row(s, p, value=2.0 + s + i, bound=1.0 + s))
            for s in range(4) for i, p in enumerate(("fifo-mct", "cbs3m-edf-online"))]
    rows.append(((4, "fifo-mct", "simgrid", 12.5e6),
                 _row(4, "fifo-mct", "invalid", None, bound=5.0)))
    rows.append(((4, "cbs3m-edf-online", "simgrid", 12.5e6),
                 _row(4, "cbs3m-edf-online", bound=5.0)))
    folder = _store(tmp_path / "res", rows)
    proc = lpsched("plot", "load", str(folder))
    assert proc.returncode == 0, proc.stderr
    assert "1 run(s) that did not finish are left out of the figures" in proc.stderr
    got = exp.read_curve_csv(folder / "fig6_max_stretch.csv")
    mct = [r for r in got if r["policy"] == "fifo-mct"]
    assert sum(r["instances"] for r in mct) == 4
    # loads 1..5 cut into 8 bins: one instance per bin (0, 2, 4, 6, 7); the last is the
    # failed run's, kept as a bin with no finished run
    assert [r["bin"] for r in mct] == [0, 2, 4, 6, 7]
    assert [r["instances"] for r in mct] == [1, 1, 1, 1, 0]
    assert [r["mean"] for r in mct[:4]] == [(2.0 + s) / (1.0 + s) for s in range(4)]


def test_plot_load_without_a_store_is_one_error_line(tmp_path):
    proc = lpsched("plot", "load", str(tmp_path))
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert proc.stdout == ""
    assert proc.stderr.startswith("lpsched: error: ") and "cbs3m.sqlite" in proc.stderr


def test_policies_lists_the_eager_variants_apart():
    """``policies --json`` stays the seed's 18 names; ``--variants`` adds the 4 eager CBS3M
    dispatchers, which the text listing marks."""
    import json

    proc = lpsched("policies", "--json")
    assert proc.returncode == 0 and proc.stderr == ""
    assert len(json.loads(proc.stdout)) == 18
    proc = lpsched("policies", "--json", "--variants")
    names = json.loads(proc.stdout)
    assert len(names) == 22 and "cbs3m-edf-online-eager" in names
    proc = lpsched("policies", "--family", "bags")
    assert proc.returncode == 0
    line = next(x for x in proc.stdout.splitlines() if x.startswith("cbs3m-edf-offline-eager"))
    assert "(variant)" in line


def test_reproduce_reading_options_reach_the_cells(tmp_path):
    """``--dd-request``, ``--greedy-switch`` and ``--arrivals`` are in every stored key, so
    a store is never read back under another reading; a bad value is one error line."""
    import sqlite3

    out = tmp_path / "r"
    proc = lpsched("reproduce", "cbs3m", "--instances", "1", "--profile", "mpi", "--jobs", "1",
                   "--quiet", "--dd-request", "idle", "--greedy-switch", "dispatch",
                   "--arrivals", "interarrival", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "Table 3 order" in proc.stdout
    with sqlite3.connect(out / "cbs3m.sqlite") as db:
        keys = [k for (k,) in db.execute("select _cell from cbs3m")]
    assert len(keys) == 18
    assert all("dd_request=idle;switch=dispatch" in k and "interarrival" in k for k in keys)
    bad = lpsched("reproduce", "cbs3m", "--instances", "1", "--greedy-switch", "late",
                  "--out", str(tmp_path / "x"))
    assert bad.returncode == 2 and bad.stdout == ""
    assert "--greedy-switch" in bad.stderr


def test_cbs3m_help_names_the_registered_greedy_readings() -> None:
    """The help's defaults are written out (no scipy import when the parser is built):
    they must be the registered policies' readings."""
    from lpsched.bags.policies import greedy
    from lpsched.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command").choices["reproduce"]
    cb = next(a for a in sub._actions if a.dest == "experiment").choices["cbs3m"]
    helps = {a.dest: a.help for a in cb._actions}
    assert f"default: {greedy.DD_REQUEST}," in helps["dd_request"]
    assert f"default: {greedy.SWITCH}," in helps["greedy_switch"]
