"""A DOT node stated twice (lpsched.ptg.wfformats.from_dot_any): the later value of an
attribute is kept, as in DOT, and a WorkflowFileWarning names each node, attribute and the
two lines when the values differ; a repetition that says the same is silent."""

from __future__ import annotations

import warnings

import pytest

from lpsched.ptg.wfformats import WorkflowFileWarning, from_dot_any


def _read_silently(text: str):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any warning fails the test
        return from_dot_any(text, "g", "g.dot")


def test_conflicting_duplicate_warns_and_keeps_the_later() -> None:
    text = 'digraph G {\n  1 [size="2e9", alpha="0.1"]\n  2 [size="1e9"]\n  1 -> 2\n' \
           '  1 [size="3e9"]\n}\n'
    with pytest.warns(WorkflowFileWarning) as rec:
        g = from_dot_any(text, "g", "g.dot")
    (w,) = rec
    msg = str(w.message)
    assert msg.startswith("g.dot: node '1' size='3e9' (line 5) replaces '2e9' (line 2)")
    assert msg.endswith("a DOT node defined twice with different values keeps the later one")
    v = g.ids.index("1")
    assert g.work[v] == 3e9 and g.alpha[v] == 0.1  # alpha from the first, size the later


def test_identical_or_added_attributes_are_silent() -> None:
    g = _read_silently('digraph { 1 [size="2e9"]; 1 [size="2000000000"]; '
                       '1 [alpha=0.2]; 2 [size=1e9]; 2 [size=1e9] }')
    assert g.work[g.ids.index("1")] == 2e9 and g.alpha[g.ids.index("1")] == 0.2
    # a node default then an explicit value is how defaults work, not a conflict
    h = _read_silently("digraph { node [alpha=0.1]; a [work=1, alpha=0.3] }")
    assert h.alpha.tolist() == [0.3]


def test_many_conflicts_one_warning() -> None:
    nodes = "".join(f"  n{i} [work=1]\n" for i in range(7))
    again = "".join(f"  n{i} [work=2]\n" for i in range(7))
    with pytest.warns(WorkflowFileWarning) as rec:
        g = from_dot_any(f"digraph {{\n{nodes}{again}}}\n", "g", "g.dot")
    (w,) = rec
    msg = str(w.message)
    assert msg.startswith("g.dot: 7 DOT nodes defined twice with different values, the "
                          "later kept: node 'n0' work='2' (line 9) replaces '1' (line 2)")
    assert "and 2 more" in msg
    assert msg.count("replaces") == 5 and "\n" not in msg
    assert set(g.work[~g.dummy].tolist()) == {2.0}  # dummies: 7 sources and sinks
