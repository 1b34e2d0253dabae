"""The report hook of seed 002 (lpsched.campaigns.report): every manifest entry a row from
an empty store and from a small one, the seed's figures drawn from the store, and
``lpsched report`` on the stores of the installed ``lpsched reproduce`` (every row of the
tables on the page, every image present)."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from lpsched.campaigns.fidelity import build_table
from lpsched.campaigns.report import report_part, run_of
from lpsched.core.store import ResultStore
from lpsched.report.manifest import manifest
from tests.cli.test_cli_subprocess import lpsched

#: a small log of one user (no Dec-Jan: Figs. 5.9-5.11 are not drawn)
SWF = """; MaxProcs: 4
1 0 0 10 1 -1 -1 1 -1 -1 1 7 1 -1 -1 -1 -1 -1
2 2 0 10 1 -1 -1 1 -1 -1 1 7 1 -1 -1 -1 -1 -1
3 30 0 4 1 -1 -1 1 -1 -1 1 7 1 -1 -1 -1 -1 -1
4 3 0 5 1 -1 -1 1 -1 -1 1 3 1 -1 -1 -1 -1 -1
"""


def figure_ids(experiment: str) -> set[str]:
    return {e.id for e in manifest("002") if e.experiment == experiment and e.kind == "figure"}


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The stores of two tiny reproductions, run by the installed console script."""
    base = tmp_path_factory.mktemp("campaign-stores")
    log = base / "small.swf"
    log.write_text(SWF)
    runs = {"faircamp": ("--instances", "2", "--users", "2,20", "--jobs-per-instance", "300"),
            "ostrich": ("--trace", str(log), "--instances", "2", "--users", "10",
                        "--jobs-per-instance", "300")}
    out = {}
    for name, argv in runs.items():
        proc = lpsched("reproduce", name, *argv, "--out", str(base / name), "--quiet")
        assert proc.returncode == 0, proc.stderr
        out[name] = base / name / f"{name}.sqlite"
    return out


@pytest.mark.parametrize("experiment", ["faircamp", "ostrich"])
def test_an_empty_store_gives_every_row_not_measured(experiment: str, tmp_path: Path) -> None:
    store = ResultStore(tmp_path / "empty.sqlite")
    part = report_part(store, experiment, tmp_path / "figs")
    wanted = {e.id for e in manifest("002") if e.experiment == experiment}
    assert wanted <= {r.ref for r in part.table.rows}
    drawn = {f.ref for f in part.figures}
    # only the worked examples, computed from the text
    assert drawn == ({"002-F4.1", "002-F4.2"} if experiment == "faircamp"
                     else {"002-F5.1", "002-F5.3", "002-F5.4"})
    assert all(f.path.is_file() and f.path.name == f"{f.ref}.png" for f in part.figures)
    assert part.notes and all(ref in part.notes[0] for ref in figure_ids(experiment) - drawn)


@pytest.mark.parametrize("experiment", ["faircamp", "ostrich"])
def test_a_small_store_gives_every_row_and_its_figures(experiment: str,
                                                       stores: dict[str, Path],
                                                       tmp_path: Path) -> None:
    store = ResultStore(stores[experiment], create=False)
    try:
        part = report_part(store, experiment, tmp_path)
        rows, cells = run_of(store, experiment)
    finally:
        store.close()
    wanted = {e.id for e in manifest("002") if e.experiment == experiment}
    assert wanted <= {r.ref for r in part.table.rows}
    # the hook's table is the CLI's: one builder
    assert part.table == build_table(experiment, rows, cells)
    expected = figure_ids(experiment) - {"002-F5.7", "002-F5.8", "002-F5.9", "002-F5.10",
                                         "002-F5.11"}
    assert {f.ref for f in part.figures} == expected
    for f in part.figures:
        assert f.path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", f.path


def test_lpsched_report_shows_every_row_and_image(stores: dict[str, Path],
                                                  tmp_path: Path) -> None:
    out = tmp_path / "report"
    proc = lpsched("report", str(stores["faircamp"]), str(stores["ostrich"]), "--out",
                   str(out))
    assert proc.returncode == 0, proc.stderr
    page = (out / "seed002.html").read_text(encoding="utf-8")
    text = html.unescape(page)
    for experiment in ("faircamp", "ostrich"):
        store = ResultStore(stores[experiment], create=False)
        try:
            rows, cells = run_of(store, experiment)
        finally:
            store.close()
        for row in build_table(experiment, rows, cells).rows:
            assert row.figure in text, row.figure
    images = re.findall(r'<img src="([^"]+)"', page)
    assert len(images) == len(figure_ids("faircamp")) + len(figure_ids("ostrich")) - 5
    for src in images:
        assert (out / src).is_file(), src


@pytest.mark.parametrize("experiment", ["faircamp", "ostrich"])
def test_captions_describe_the_runs_size(experiment: str, stores: dict[str, Path],
                                         tmp_path: Path) -> None:
    """A figure drawn from 2 instances says 2, never the seed's "10^3" as what is drawn."""
    store = ResultStore(stores[experiment], create=False)
    try:
        part = report_part(store, experiment, tmp_path)
    finally:
        store.close()
    captions = {f.ref: f.caption for f in part.figures}
    if experiment == "faircamp":
        assert "the mean over 2 instances per k (the seed's: 10^3)" in captions["002-F4.3"]
        assert "95 % intervals" in captions["002-F4.3"]
        assert "of 2 instances at k = 20" in captions["002-F4.4"]
        assert "average over 10^3" not in " ".join(captions.values())
    else:
        assert "over 2 instances of 10 users" in captions["002-F5.13"]
        assert "pooled over 2 instances of 10 users" in captions["002-F5.12"]
