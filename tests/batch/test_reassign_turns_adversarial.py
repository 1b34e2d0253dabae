"""Reassign's lazy pass takes the previous pass's turns on workloads built for its corners.

:meth:`_BatchSim.reassign_turns` finds each ``reassign`` candidate only when its turn comes,
against the free processors' bound and table and the plan as they were at the last re-test
(decision 683); the previous pass, kept in tests/batch/test_reassign_scan.py as the
reference, re-listed every later waiting job after each turn that let part of the plan go.
The argument that both take the same turns rests on what may change between two re-tests:
a candidate's failed try (the plan let go and taken back), a due job started on its own
slot (the free processors change, the plan does not) and a due job started off its slot
(the plan changes: the later candidates are listed before it). Here both passes run on
workloads drawn to hit those steps and the pass's edges: many jobs submitted at the same
instant (many due jobs, many re-tests in one pass), estimates far above and below the run
times (early ends, overruns, the estimate as the kill time), jobs of no time and of no
processor, sizes near the machine's, machines of one to eight processors, trees with an
uninstalled tail, placement penalties, a clock near 1e9 s (where the plan's tolerance
``1e-9 * |t|`` is a second), every one of the eleven allocation rules, the compiled and
the Python plan. A pass that runs only at coarser wake-ups than the slot starts reaches the
off-slot due turns a real run never does (every slot start has its pass), and with them
the listing they need. The compiled lazy search is also checked call by call, on the plans
of real passes, against the numpy steps, and the free processors' bound and ``loc`` table
against :meth:`_BatchSim.fits_now` on every state a pass reads them in.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, ClassVar

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lpsched.batch import plan
from lpsched.batch import simulator as simulator_module
from lpsched.batch.allocation import ALLOCATORS, NEEDS_CLUSTERS, NEEDS_TOPOLOGY
from lpsched.batch.plan import PythonProfile
from lpsched.batch.simulator import _BatchSim
from lpsched.batch.topology import Topology, fat_tree, kary_ntree
from lpsched.core.kernels import PURE_PYTHON
from lpsched.core.swf import Workload
from tests.batch.test_reassign_scan import BUILT, _turns, needs_c

PLANS = (False, True) if BUILT else (True,)  # ``pure``: the Python plan
KINDS = ("ties", "estimates", "wide", "zero", "clock", "overrun", "mixed")
# small trees: (tree, the fewest installed leaves drawn)
TREES: tuple[tuple[Topology, int], ...] = (
    (kary_ntree(2, 2), 2), (kary_ntree(2, 3), 3), (fat_tree(2, [2]), 2),
    (fat_tree(3, [2, 2]), 5), (fat_tree(2, [2, 2]), 3), (kary_ntree(3, 2), 4),
)


def _corner_work(rng: np.random.Generator, kind: str, n: int, m: int) -> Workload:
    """``n`` jobs on ``m`` processors, drawn for one corner ``kind`` of :data:`KINDS`."""
    if kind in ("ties", "zero", "mixed"):  # a handful of submission instants
        submit = rng.integers(0, 4, n) * float(rng.choice([1.0, 10.0, 100.0]))
    else:
        submit = rng.integers(0, 2000, n).astype(float)
    if kind == "clock":
        submit = submit + 1e9
    run = rng.choice([0.0, 1.0, 5.0, 10.0, 30.0, 100.0], n)
    if kind in ("estimates", "mixed", "clock"):
        run = np.where(rng.random(n) < 0.5, run, rng.uniform(0, 300, n))
    factor = {"overrun": [0.1, 0.5, 0.9, 1.0, 3.0], "ties": [1.0, 2.0, 3.0]}.get(
        kind, [0.0, 1e-3, 0.1, 0.5, 1.0, 1.0, 1.0, 2.0, 10.0, 1e3])
    est = run * rng.choice(factor, n)
    if kind == "zero":
        run = np.where(rng.random(n) < 0.4, 0.0, run)
        est = np.where(rng.random(n) < 0.3, 0.0, est)
    if kind == "clock":  # estimates of a second or less at t = 1e9: inside the tolerance
        est = np.where(rng.random(n) < 0.3, rng.uniform(0, 2, n), est)
    if kind in ("wide", "mixed"):
        size = rng.choice([1, m // 2, m // 2 + 1, m - 1, m], n)
    else:
        size = rng.integers(1, m + 1, n)
    if kind in ("zero", "mixed"):
        size = np.where(rng.random(n) < 0.15, 0, size)
    return Workload(job=np.arange(n), submit=np.sort(submit), run=run,
                    size=np.clip(size, 0, m).astype(np.int64), estimate=est, processors=m)


def _corner_case(rng: np.random.Generator, rule: str, kind: str, compression: str = "reassign",
                 ) -> tuple[Workload, dict[str, Any]]:
    """A workload of ``kind`` and the options of one run under ``rule``: a tiny line or a
    small tree (often with uninstalled leaves, sometimes a penalty or a speed-up)."""
    kwargs: dict[str, Any] = {"alloc": rule, "compression": compression,
                              "kill": bool(rng.random() < 0.4)}
    if rule in NEEDS_TOPOLOGY or rng.random() < 0.3:
        topo, fewest = TREES[int(rng.integers(len(TREES)))]
        m = int(rng.integers(fewest, topo.leaves + 1))
        kwargs.update(topology=topo, processors=m)
        if rng.random() < 0.3:
            kwargs["penalty"] = ("linear", 0.5)
        if rule in ("contiguous", "quasi-contiguous") and rng.random() < 0.3:
            kwargs["speedup"] = 20.0
    else:
        m = int(rng.integers(1, 9))
        if rule in NEEDS_CLUSTERS:
            kwargs["cluster_size"] = int(rng.integers(1, 5))  # not always a divisor of m
    return _corner_work(rng, kind, int(rng.integers(20, 120)), m), kwargs


def _moves(taken: list[Any]) -> int:
    """The turns that moved a waiting job before its slot (not due, let part of it go)."""
    return sum(1 for _, due, _, out in taken if not due and out)


@pytest.mark.parametrize("rule", ALLOCATORS)
def test_corner_workloads_take_the_reference_turns(monkeypatch: pytest.MonkeyPatch,
                                                   rule: str) -> None:
    """Every corner kind twice under ``rule``: the same turns, plans and schedule as the
    reference pass, with the candidates listed before each due turn too."""
    rng = np.random.default_rng(6830 + ALLOCATORS.index(rule))
    moved = 0
    for kind in KINDS * 2:
        work, kwargs = _corner_case(rng, rule, kind)
        for pure in PLANS:
            want = _turns(monkeypatch, True, pure, work, **kwargs)
            assert _turns(monkeypatch, False, pure, work, **kwargs) == want, \
                (kind, pure, kwargs)
            assert _turns(monkeypatch, False, pure, work, True, **kwargs) == want, \
                (kind, pure, kwargs)
            moved += _moves(want[0])
    assert moved > 20  # the passes moved jobs: the turns compared include moves


@pytest.mark.parametrize("rule", ["basic", "cont", "loc", "plat"])
def test_textbook_passes_with_new_jobs_started_at_once(monkeypatch: pytest.MonkeyPatch,
                                                       rule: str) -> None:
    """The textbook compression keeps its eager test, but its passes also start a new job
    placed now without holding it first (decision 682): the reference pass's turns."""
    rng = np.random.default_rng(6820 + ALLOCATORS.index(rule))
    for kind in KINDS:
        work, kwargs = _corner_case(rng, rule, kind, "textbook")
        for pure in PLANS:
            want = _turns(monkeypatch, True, pure, work, **kwargs)
            assert _turns(monkeypatch, False, pure, work, **kwargs) == want, \
                (kind, pure, kwargs)


@contextmanager
def _late_passes(grid: float, spy: list[int] | None = None) -> Iterator[None]:
    """Wake-ups rounded up to a multiple of ``grid`` (s): a reservation's pass comes at or
    after its slot's start, so due jobs take their turn off their slot, and starting one
    edits the plan without letting part of it go. ``spy``: one entry appended per such
    start in a ``reassign`` pass (the turn the listing before it exists for)."""
    turn = _BatchSim.turn

    def late_wake(self: _BatchSim, t: float) -> None:
        heapq.heappush(self.wakes, math.ceil(t / grid) * grid)

    def counted(self: _BatchSim, j: int, due: bool, rule: str) -> bool:
        rs = self.slot[j][0]
        out = turn(self, j, due, rule)
        if spy is not None and due and rule == "reassign" and rs != self.now and not out:
            spy.append(j)
        return out

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_BatchSim, "wake_at", late_wake)
        patch.setattr(_BatchSim, "turn", counted)
        yield


def _late_work(rng: np.random.Generator, n: int, m: int) -> Workload:
    """Jobs for late passes: half of them end at their estimate (they keep their slot and
    take due turns), the others early (reassign passes); sizes of one, half and all of
    the ``m`` processors (few of them can be moved)."""
    run = rng.choice([2.0, 5.0, 10.0, 20.0], n)
    return Workload(job=np.arange(n), submit=np.sort(rng.uniform(0, 200, n)).round(0),
                    run=run, size=rng.choice([1, (m + 1) // 2, m], n),
                    estimate=run * rng.choice([1.0, 1.0, 1.5, 3.0], n), processors=m)


@pytest.mark.parametrize("rule", ALLOCATORS)
def test_passes_after_the_slot_starts_take_the_reference_turns(
        monkeypatch: pytest.MonkeyPatch, rule: str) -> None:
    """With passes on a coarse grid of wake-ups, due jobs start off their slot in the
    middle of reassign passes (the plan changes between two re-tests): the same turns as
    the reference pass, on the late-pass jobs and on the corner kinds."""
    rng = np.random.default_rng(6831 + ALLOCATORS.index(rule))
    late: list[int] = []
    for trial in range(12):
        kind = KINDS[trial % len(KINDS)]
        work, kwargs = _corner_case(rng, rule, kind)
        if trial % 3:
            work = _late_work(rng, 80, int(work.processors or 1))
        with _late_passes(float(rng.choice([7.0, 13.0])), late):
            for pure in PLANS:
                want = _turns(monkeypatch, True, pure, work, **kwargs)
                assert _turns(monkeypatch, False, pure, work, **kwargs) == want, \
                    (kind, pure, kwargs)
    assert late  # some due jobs started off their slot inside a reassign pass


# m = 4, basic; passes on a 3 s grid: in the pass at t = 188 job 12, due since its slot's
# start, starts off its slot and takes more of the plan than its slot held; job 21, which
# the test let through before that turn, fails the test after it: the list made before
# the turn holds it, and its try (which fails) is a turn all the same
_LATE = np.array([
    (30, 20, 3, 20), (30, 5, 4, 13), (35, 10, 3, 10), (35, 5, 3, 23), (35, 0, 3, 0),
    (35, 0, 4, 3), (50, 20, 3, 40), (50, 0, 2, 3), (70, 2, 4, 11), (75, 10, 4, 13),
    (75, 10, 3, 20), (80, 5, 3, 8), (85, 20, 3, 23), (85, 2, 4, 2), (90, 10, 2, 10),
    (110, 20, 1, 40), (115, 10, 2, 10), (120, 10, 1, 10), (125, 5, 3, 5), (135, 2, 2, 5),
    (140, 5, 2, 5), (145, 10, 1, 23)], float)  # submit, run, size, estimate


def test_the_list_before_a_late_due_start_is_what_keeps_the_turns(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """On a workload where a due job started off its slot changes which later jobs the
    test lets through, the pass takes the reference turns; the same pass without the
    listing before that turn (``off_slot`` answering no) takes others: the workload reaches
    the state the listing is for."""
    work = Workload(job=np.arange(len(_LATE)), submit=_LATE[:, 0], run=_LATE[:, 1],
                    size=_LATE[:, 2].astype(np.int64), estimate=_LATE[:, 3], processors=4)
    late: list[int] = []
    with _late_passes(3.0, late):
        for pure in PLANS:
            want = _turns(monkeypatch, True, pure, work, compression="reassign")
            assert _turns(monkeypatch, False, pure, work, compression="reassign") == want
            assert _turns(monkeypatch, False, pure, work, True, compression="reassign") \
                == want
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(_BatchSim, "off_slot", lambda self, j: False)
                unlisted = _turns(monkeypatch, False, pure, work, compression="reassign")
            assert unlisted[0] != want[0]
    assert late


class _CheckedPlan:
    """The compiled plan, each ``reassign_next`` and ``reassign_scan`` answer checked against
    the Python plan's on a copy of the same breakpoints (the numpy steps); ``calls`` counts
    the lazy searches and the ones that read past the first position."""

    calls: ClassVar[list[int]] = [0, 0]

    def __init__(self, now: float, free_now: int) -> None:
        self.inner = getattr(plan, "_plan_c").Profile(now, free_now)  # noqa: B009

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def _copy(self) -> PythonProfile:
        copy = PythonProfile(0.0, 0)
        copy.times, copy.free = self.inner.times.copy(), self.inner.free.copy()
        return copy

    def reassign_next(self, *args: Any) -> int:
        got = self.inner.reassign_next(*args)
        assert got == self._copy().reassign_next(*args), args[4:]
        self.calls[0] += 1
        self.calls[1] += got > args[5]
        return int(got)

    def reassign_scan(self, *args: Any) -> list[int]:
        got = self.inner.reassign_scan(*args)
        assert got == self._copy().reassign_scan(*args), args[4:]
        return list(got)


_FREE_CAP = _BatchSim.free_cap


def _checked_free_cap(self: _BatchSim) -> int:
    """:meth:`_BatchSim.free_cap`, with it and :meth:`_BatchSim.loc_best` checked against
    :meth:`_BatchSim.fits_now` for every size from 0 to the machine's."""
    cap = _FREE_CAP(self)
    sizes = np.arange(self.machine + 1, dtype=np.int64)
    want = self.fits_now(sizes)
    got = sizes <= cap
    best = self.loc_best()
    if best is not None:
        need = -(-sizes // (self.cluster_size or 1))
        got &= best[np.minimum(need, best.size - 1)] >= sizes
    assert (got == want).all(), (self.now, cap, best)
    return int(cap)


@needs_c
@pytest.mark.parametrize("rule", ["basic", "cont", "cont-ff", "loc", "beloc", "plat"])
def test_every_lazy_search_of_a_pass_answers_as_the_numpy_steps(
        monkeypatch: pytest.MonkeyPatch, rule: str) -> None:
    """The compiled ``reassign_next`` (the running minimum built only as deep as the sizes
    read need) and ``reassign_scan`` on the plans, queues and free processors of real
    passes, call by call, against the Python plan; ``free_cap``/``loc_best`` against
    ``fits_now`` whenever a pass reads them."""
    rng = np.random.default_rng(6832 + ALLOCATORS.index(rule))
    _CheckedPlan.calls = [0, 0]
    monkeypatch.setenv(PURE_PYTHON, "0")
    monkeypatch.setattr(simulator_module, "Profile", _CheckedPlan)
    monkeypatch.setattr(_BatchSim, "free_cap", _checked_free_cap)
    for kind in KINDS:
        work, kwargs = _corner_case(rng, rule, kind)
        simulator_module.simulate_batch(work, "conservative", **kwargs)
    with _late_passes(7.0):  # and with the listing before off-slot due turns
        work, kwargs = _corner_case(rng, rule, "mixed")
        simulator_module.simulate_batch(work, "conservative", **kwargs)
    assert _CheckedPlan.calls[0] > 50 and _CheckedPlan.calls[1] > 0


@st.composite
def _drawn_case(draw: st.DrawFn) -> tuple[Workload, dict[str, Any]]:
    """A small workload from the corners' values: submissions on a few instants, runs of 0
    to 50 s, estimates 0 to 1000 times the run (or a fixed 3 s), sizes 0 to ``m``."""
    rule = draw(st.sampled_from(ALLOCATORS))
    kwargs: dict[str, Any] = {"alloc": rule, "compression": "reassign",
                              "kill": draw(st.booleans())}
    if rule in NEEDS_TOPOLOGY:
        m = draw(st.integers(3, 8))
        kwargs.update(topology=fat_tree(2, [2, 2]), processors=m)
    else:
        m = draw(st.integers(1, 6))
        if rule in NEEDS_CLUSTERS:
            kwargs["cluster_size"] = draw(st.integers(1, 3))
    n = draw(st.integers(1, 25))
    submit = draw(st.lists(st.sampled_from([0.0, 1.0, 5.0, 10.0]), min_size=n, max_size=n))
    run = draw(st.lists(st.sampled_from([0.0, 1.0, 2.0, 5.0, 10.0, 50.0]), min_size=n,
                        max_size=n))
    factor = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 1.0, 2.0, 10.0, 1e3, -1.0]),
                           min_size=n, max_size=n))
    size = draw(st.lists(st.integers(0, m), min_size=n, max_size=n))
    est = [3.0 if f < 0 else r * f for r, f in zip(run, factor, strict=True)]
    work = Workload(job=np.arange(n), submit=np.cumsum(submit), run=np.array(run),
                    size=np.array(size, np.int64), estimate=np.array(est), processors=m)
    return work, kwargs


@given(_drawn_case())
@settings(max_examples=200)
def test_drawn_small_workloads_take_the_reference_turns(
        case: tuple[Workload, dict[str, Any]]) -> None:
    """Hypothesis's small workloads (shrunk to a minimal one on a difference): the same
    turns, plans and schedule as the reference pass, lazily and listed, both plans."""
    work, kwargs = case
    patch = pytest.MonkeyPatch()
    for pure in PLANS:
        want = _turns(patch, True, pure, work, **kwargs)
        assert _turns(patch, False, pure, work, **kwargs) == want
        assert _turns(patch, False, pure, work, True, **kwargs) == want
