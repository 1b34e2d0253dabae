"""The compiled maximum flow of the exact bounds (``lpsched.tasks._flow_c``) against scipy's
``maximum_flow`` (the reference): the same value on random graphs (parallel edges, zero
capacities, cycles, an unreachable sink) and on the deadline graphs of
:func:`lpsched.tasks.bounds.flow_feasible`, hence the same answers of the flow test."""

from __future__ import annotations

import numpy as np
import pytest

from lpsched.tasks import bounds

pytestmark = pytest.mark.skipif(bounds._flow_c is None,
                                reason="the extension lpsched.tasks._flow_c is not built")


def _scipy(nodes: int, rows, cols, caps) -> int:
    import scipy.sparse as sp
    from scipy.sparse.csgraph import maximum_flow

    graph = sp.csr_matrix((caps.astype(np.int32), (rows, cols)), shape=(nodes, nodes))
    return int(maximum_flow(graph, 0, nodes - 1).flow_value)


@pytest.mark.parametrize("seed", range(8))
def test_compiled_flow_equals_scipys_on_random_graphs(seed):
    rng = np.random.default_rng(seed)
    for _ in range(150):
        nodes = int(rng.integers(2, 50))
        edges = int(rng.integers(0, 250))
        rows, cols = rng.integers(0, nodes, edges), rng.integers(0, nodes, edges)
        keep = rows != cols
        rows, cols = rows[keep], cols[keep]
        # below 2^31 in all: scipy sums parallel edges in int32
        caps = rng.integers(0, 2 ** int(rng.integers(1, 22)), rows.size)
        got = bounds._flow_c.max_flow(nodes, rows.astype(np.int64), cols.astype(np.int64),
                                      caps.astype(np.int64), 0, nodes - 1)
        assert got == _scipy(nodes, rows, cols, caps)


def test_no_edge_and_no_path():
    empty = np.zeros(0, np.int64)
    assert bounds._flow_c.max_flow(3, empty, empty, empty, 0, 2) == 0
    one = np.array([0], np.int64)
    assert bounds._flow_c.max_flow(3, one, one + 1, one + 5, 0, 2) == 0
    assert bounds._flow_c.max_flow(2, one, one + 1, one + 5, 0, 1) == 5


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("strict", [False, True])
def test_flow_test_answers_as_with_scipy(seed, strict, monkeypatch):
    rng = np.random.default_rng(100 + seed)
    n, m = 60, 3
    release = np.sort(rng.integers(0, 200, n)).astype(float)
    p = rng.lognormal(2.0, 1.0, n)
    for s in (1.0, 1.5, 3.0, 8.0, 30.0):
        deadline = release + s * np.maximum(p, 10.0)
        compiled = bounds.flow_feasible(release, p, deadline, m, strict)
        monkeypatch.setenv("LPSCHED_PURE_PYTHON", "1")
        reference = bounds.flow_feasible(release, p, deadline, m, strict)
        monkeypatch.delenv("LPSCHED_PURE_PYTHON")
        assert compiled == reference


def test_without_the_extension_scipy_answers(monkeypatch):
    rows = np.array([0, 0, 1, 2, 1], np.int64)
    cols = np.array([1, 2, 3, 3, 2], np.int64)
    caps = np.array([4, 2, 3, 5, 1], np.int32)
    compiled = bounds._max_flow(4, rows, cols, caps)
    monkeypatch.setattr(bounds, "_flow_c", None)
    assert bounds._max_flow(4, rows, cols, caps) == compiled == 6


@pytest.mark.parametrize(("args", "message"), [
    ((3, [0], [1, 2], [5], 0, 2), "1 edge tails, 2 heads, 1 capacities"),
    ((3, [0], [3], [5], 0, 2), "edge 0: \\(0, 3, 5\\) is not an edge"),
    ((3, [-1], [1], [5], 0, 2), "edge 0: \\(-1, 1, 5\\)"),
    ((3, [0], [1], [-5], 0, 2), "with a capacity >= 0"),
    ((3, [0], [1], [5], 0, 3), "source 0 and sink 3 must be nodes of 0..2"),
])
def test_a_malformed_graph_is_refused(args: tuple, message: str) -> None:
    nodes, rows, cols, caps, source, sink = args
    with pytest.raises(ValueError, match=message):
        bounds._flow_c.max_flow(nodes, np.array(rows, np.int64), np.array(cols, np.int64),
                                np.array(caps, np.int64), source, sink)
