"""The CBS3M solves shared by the policies of one instance (:class:`SolveMemo`) and the
LP matrix kept across objective changes: both must leave every answer as a fresh solve
gives it."""

from __future__ import annotations

import numpy as np
import pytest

from lpsched.bags import random_bags
from lpsched.bags import reproduce as exp
from lpsched.bags.maxstretch import max_stretch, online_max_stretch
from lpsched.bags.policies import cbs3m
from lpsched.bags.policies.cbs3m import SolveMemo
from lpsched.bags.schedule import metrics
from lpsched.bags.simulator import simulate
from lpsched.models.program import LinearProgram


@pytest.fixture(scope="module")
def inst():
    return random_bags(profile="mpi", seed=3)


def _state(inst):
    """A mid-run state: half of the first released applications' tasks left."""
    t = float(np.sort(inst.release)[inst.n // 2])
    released = inst.release <= t
    remaining = np.where(released, np.ceil(inst.tasks / 2), 0).astype(float)
    buffered = np.zeros((inst.n, inst.p))
    buffered[released, 0] = 1.0
    return t, remaining, buffered, released


def _same(a, b) -> None:
    assert a.stretch == b.stretch
    for name in ("apps", "epochs", "comm", "deadlines"):
        assert np.array_equal(np.asarray(getattr(a.plan, name)),
                              np.asarray(getattr(b.plan, name)))


def test_online_answer_is_the_fresh_solve_and_asked_once(inst) -> None:
    memo = SolveMemo()
    t, rem, buf, rel = _state(inst)
    first = memo.online(inst, t, rem, buf, rel)
    _same(first, online_max_stretch(inst, t, rem, buf, released=rel))
    again = memo.online(inst, t, rem.copy(), buf.copy(), rel.copy())
    assert (memo.hits, memo.misses) == (1, 1)
    _same(again, first)
    assert again.search is None  # the live HiGHS models are not kept


def test_another_state_or_instance_is_solved_again(inst) -> None:
    memo = SolveMemo()
    t, rem, buf, rel = _state(inst)
    memo.online(inst, t, rem, buf, rel)
    rem2 = rem.copy()
    rem2[np.flatnonzero(rem2)[0]] -= 1
    memo.online(inst, t, rem2, buf, rel)
    assert (memo.hits, memo.misses) == (0, 2)
    other = random_bags(profile="mpi", seed=4)
    _same(memo.offline(other), max_stretch(other))
    memo.online(inst, t, rem, buf, rel)  # the other instance replaced this one's solves
    assert (memo.hits, memo.misses) == (0, 4)


def test_offline_answer_is_the_lower_bound_of_the_tables(inst) -> None:
    memo = SolveMemo()
    _same(memo.offline(inst), max_stretch(inst))
    memo.offline(inst)
    assert memo.hits == 1


def test_policies_sharing_the_memo_run_as_alone(inst, monkeypatch) -> None:
    names = ["cbs3m-fifo-online", "cbs3m-edf-online", "cbs3m-fifo-offline",
             "cbs3m-edf-offline"]

    def runs():
        out = []
        for name in names:
            res = simulate(inst, exp.make_policy(name))
            out.append((metrics(inst, res.schedule).to_dict(), res.events,
                        res.stats["solves"], res.stats["stretches"]))
        return out

    shared = SolveMemo()
    monkeypatch.setattr(cbs3m, "SOLVES", shared)
    together = runs()
    assert shared.hits > 0
    alone = []
    for name in names:  # each policy with an empty memo of its own
        monkeypatch.setattr(cbs3m, "SOLVES", SolveMemo())
        res = simulate(inst, exp.make_policy(name))
        alone.append((metrics(inst, res.schedule).to_dict(), res.events,
                      res.stats["solves"], res.stats["stretches"]))
    assert together == alone


def _lp(cls):
    lp = cls("t", sense="max")
    x = lp.add_variables("x", 3, upper=2.0)
    lp.add_constraints("sum", [0, 0, 1], x, [1.0, 2.0, 1.0], upper=[3.0, 1.0], num_rows=2)
    return lp, x


def test_a_live_lp_keeps_its_matrix_across_objectives() -> None:
    """The stretch searches swap a loaded model's costs between questions; each answer's
    residual check reads the matrix, which the objective never enters."""
    lp, x = _lp(LinearProgram)
    fresh, _ = _lp(LinearProgram)
    before, arrays = lp.matrix, lp.csc
    lp.set_objective(x, [1.0, 2.0, 3.0])
    assert lp.matrix is before and lp.csc is arrays  # not rebuilt
    fresh.set_objective(x, [1.0, 2.0, 3.0])
    assert (lp.matrix != fresh.matrix).nnz == 0
    assert np.array_equal(lp.cost, fresh.cost)
    lp.add_constraints("more", [0], x[:1], 1.0, upper=1.0, num_rows=1)
    assert lp.matrix is not before and lp.csc is not arrays and lp.matrix.shape == (3, 3)


def test_an_answer_is_never_given_for_another_instance(inst) -> None:
    """Two instances interleaved (threads sharing the memo): a solve of the first that ends
    after the second took the memo over is not stored under the second."""
    memo = SolveMemo()
    other = random_bags(profile="mpi", seed=4)
    assert memo._lookup(inst, ("offline",)) is None
    assert memo._lookup(other, ("offline",)) is None  # the other instance takes over
    memo._keep(inst, ("offline",), max_stretch(inst))
    assert memo._lookup(other, ("offline",)) is None
    _same(memo.offline(other), max_stretch(other))
    assert memo.hits == 0
