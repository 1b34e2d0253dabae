"""The batch reproductions weigh their cells by the jobs simulated, so the progress line's
time left is estimated by work (decision 431)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lpsched.batch import reproduce as exp
from lpsched.cli.batch import _cell_jobs

SWF = """; MaxProcs: 8
1 0 -1 10 2 -1 -1 2 20 -1 1 1 1 1 1 -1 -1 -1
2 86400 -1 5 4 -1 -1 4 10 -1 1 1 1 1 1 -1 -1 -1
3 1209600 -1 3 1 -1 -1 1 5 -1 1 1 1 1 1 -1 -1 -1
4 1814400 -1 3 1 -1 -1 1 5 -1 1 1 1 1 1 -1 -1 -1
"""


@pytest.fixture
def trace(tmp_path: Path) -> str:
    path = tmp_path / "four.swf"
    path.write_text(SWF)
    return str(path)


def test_platform_cells_weigh_jobs_per_period(trace: str) -> None:
    # 4 jobs over 3 weeks of submissions: 4/3 jobs a week, times the cell's periods
    cells = exp.platform_cells(trace, 1, 2, "fat-tree:2,4", status="all")
    cost = _cell_jobs("platform-level")
    assert cost(cells[0]) == pytest.approx(2 * 4 / 3)


def test_topology_cells_weigh_their_limit_or_the_whole_trace(trace: str) -> None:
    whole = exp.topology_cells(trace, [0.0], 0)
    assert _cell_jobs("topology-aware")(whole[0]) == 4.0
    first = exp.topology_cells(trace, [0.0], 3)
    assert _cell_jobs("topology-aware")(first[0]) == 3.0


def test_contiguity_cells_weigh_their_instance_size(trace: str) -> None:
    cells = exp.contiguity_cells(trace, 1, 3, 8, 4)
    assert _cell_jobs("contiguity")(cells[0]) == 3.0


def test_redirection_cells_weigh_table_3_1s_tasks_per_instance() -> None:
    from lpsched.cli.tasks import _cell_tasks

    cost = _cell_tasks()
    assert cost(["/data/CEA-Curie-2011-2.1-cln.swf.gz", 0, "spt"]) == 70215.0
    assert cost(["/data/KTH-SP2-1996-2.1-cln.swf.gz", 0, "spt"]) == 860.0
    assert cost(["/data/other.swf", 0, "spt"]) == 4601.0  # Table 3.1's median
