"""HCPA allocation, its replayable trajectory and M-STATIC (spec §3.1–§3.3)."""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lpsched.errors import InvalidInstanceError
from lpsched.ptg import hcpa_loop, levels
from lpsched.ptg.generators import fft_ptg, random_ptg
from lpsched.ptg.hcpa import NO_BOUND, HcpaBound, Trajectory, all_allocs, hcpa_alloc, hcpa_schedule
from lpsched.ptg.levels import bottom_levels, dag_levels
from lpsched.ptg.model import Dag, flatten, single
from lpsched.ptg.mstatic import best_set, hcpa_makespans, m_static, static_makespan
from tests.ptg.helpers import SPEED, chain_fork


def fork() -> Dag:
    """entry → a (100 s), b (60 s) → exit; α = 0."""
    g = chain_fork({"a": (100.0, 0.0), "b": (60.0, 0.0)}, [])
    return single(g, SPEED)


def test_hcpa_hand_computed_fork() -> None:
    # p=(1,1): T_CP=100 > T_A=160/4; a→2: CP is b (60); b→2: CP is a (50) > 40; a→3:
    # T_CP = max(33.3, 30) <= 40: stop.
    d = fork()
    p = hcpa_alloc(d, 4, bound=NO_BOUND)
    real = dict(zip(np.flatnonzero(~d.dummy).tolist(), p[~d.dummy].tolist(), strict=True))
    assert list(real.values()) == [3, 2]
    assert p[d.dummy].tolist() == [0, 0]


def test_hcpa_single_task_amdahl() -> None:
    # α = 0.5, t1 = 100, P = 8: T_CP = T(p) and T_A = p·T(p)/8 meet at p = 8 (56.25)
    d = single(chain_fork({"x": (100.0, 0.5)}, []), SPEED)
    assert hcpa_alloc(d, 8, bound=NO_BOUND).tolist() == [8]
    assert hcpa_alloc(d, 8, cap=3, bound=NO_BOUND).tolist() == [3]


def test_level_cap() -> None:
    d = fork()
    p = hcpa_alloc(d, 4, cap=4, level_cap=3, levels=np.array([0, 1, 1, 2]), bound=NO_BOUND)
    assert p[~d.dummy].sum() <= 3


def test_hcpa_schedule_hand_computed() -> None:
    # a on 3 processors [0, 33.3]; b (2 processors) appended after a on BEST_SET {3, 0}
    d = fork()
    s = hcpa_schedule(d, 4, np.random.default_rng(0), bound=NO_BOUND)
    a, b = np.flatnonzero(~d.dummy)
    assert s.start[a] == 0 and s.end[a] == pytest.approx(100 / 3)
    assert s.procs[a].tolist() == [0, 1, 2]
    assert s.start[b] == pytest.approx(100 / 3) and s.end[b] == pytest.approx(100 / 3 + 30)
    assert s.procs[b].tolist() == [0, 3]


def test_best_set_prefers_smallest_gap() -> None:
    avail = np.array([5.0, 1.0, 3.0, 9.0, 0.0])
    assert best_set(avail, 2, 4.0).tolist() == [2, 1]  # free by 4: 3 then 1
    assert best_set(avail, 4, 4.0).tolist() == [2, 1, 4, 0]  # then the later ones


def _naive(dag: Dag, budget: int, bound: HcpaBound = NO_BOUND) -> np.ndarray:
    """One increment at a time, full recomputation (an independent reference); the bound's
    caps, level cap and stopping budget are applied literally (spec §3.1's pseudo-code)."""
    p = np.where(dag.dummy, 0, 1)
    caps, lcap, eff = bound.caps(dag, budget), bound.level_cap(budget), bound.budget(budget)
    lev = dag_levels(dag)

    def fits(u: int) -> bool:
        return not dag.dummy[u] and p[u] < caps[u] and (
            lcap is None or p[(lev == lev[u]) & ~dag.dummy].sum() + 1 <= lcap)

    while True:
        tt = dag.times(p)
        bl = tt.copy()
        for v in range(dag.n - 1, -1, -1):
            if dag.succs[v]:
                bl[v] = tt[v] + max(bl[w] for w in dag.succs[v])
        src = [v for v in range(dag.n) if not dag.preds[v]]
        v = max(src, key=lambda u: (bl[u], -u))
        cp, path = bl[v], [v]
        while dag.succs[v]:
            v = max(dag.succs[v], key=lambda u: (bl[u], -u))
            path.append(v)
        area = (np.maximum(p, 1) * tt)[~dag.dummy].sum()
        if cp <= area / eff * (1 + 1e-12):
            return p
        cand = [v for v in path if fits(v)]
        if not cand:
            return p

        def gain(u: int) -> float:
            return dag.time(u, p[u]) / p[u] - dag.time(u, p[u] + 1) / (p[u] + 1)

        p[max(cand, key=lambda u: (gain(u), -u))] += 1


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(2, 16), jump=st.integers(1, 3),
       density=st.sampled_from([0.2, 0.8]))
def test_batched_hcpa_and_trajectory_equal_the_reference(seed: int, n: int, jump: int,
                                                         density: float) -> None:
    d = single(random_ptg(n, 0.5, density, 0.5, jump, seed=seed), SPEED)
    traj = Trajectory.build(d, 24, NO_BOUND)
    every = all_allocs(traj)
    for b in (1, 2, 3, 7, 16, 24):
        ref = _naive(d, b)
        assert np.array_equal(hcpa_alloc(d, b, bound=NO_BOUND), ref)
        assert np.array_equal(traj.alloc(b), ref)
        assert np.array_equal(every[b - 1], ref)


BOUNDS = ["none", "fraction:0.5", "fraction:0.3", "sqrt:1", "efficiency:0.6", "level:1",
          "level:0.5", "budget:0.5"]


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(2, 16), jump=st.integers(1, 3),
       density=st.sampled_from([0.2, 0.8]), bound=st.sampled_from(BOUNDS))
def test_every_bound_replays_exactly(seed: int, n: int, jump: int, density: float,
                                     bound: str) -> None:
    """hcpa_alloc, Trajectory.alloc and all_allocs equal the literal reference for every
    budget under every kind of improved-HCPA bound (the replay needs monotone caps)."""
    d = single(random_ptg(n, 0.5, density, 0.5, jump, seed=seed), SPEED)
    hb = HcpaBound.parse(bound)
    traj = Trajectory.build(d, 24, hb)
    every = all_allocs(traj)
    for b in range(1, 25):
        ref = _naive(d, b, hb)
        assert np.array_equal(hcpa_alloc(d, b, bound=hb), ref), b
        assert np.array_equal(traj.alloc(b), ref), b
        assert np.array_equal(every[b - 1], ref), b
        assert (ref[~d.dummy] <= hb.caps(d, b)[~d.dummy]).all()


@pytest.mark.parametrize(("bound", "expected"), [
    # fork a (100 s), b (60 s), α = 0, P = 4; plain CPA gives [3, 2] (above)
    ("none", [3, 2]),
    ("efficiency:0.9", [3, 2]),  # α = 0: every allocation is efficient
    # cap 2: a→2 (CP a, 100 > 160/4), b→2 (CP b, 60 > 40); CP a (50) > 40 but a is capped
    ("fraction:0.5", [2, 2]),
    ("sqrt:1", [2, 2]),  # ⌈√4⌉ = 2, as above
    ("fraction:0.75", [3, 2]),  # cap 3 does not bind
    # a and b share a level: level cap 4 stops a at 2 (2 + 2 = 4), level cap 2 at 1 each
    ("level:1", [2, 2]),
    ("level:0.5", [1, 1]),
    # HCPA on 2 processors: a→2, then T_CP = 60 <= 160/2
    ("budget:0.5", [2, 1]),
])
def test_bound_hand_computed_fork(bound: str, expected: list[int]) -> None:
    d = fork()
    p = hcpa_alloc(d, 4, bound=HcpaBound.parse(bound))
    assert p[~d.dummy].tolist() == expected and p[d.dummy].tolist() == [0, 0]


@pytest.mark.parametrize(("bound", "expected"), [
    # one task, t1 = 100, α = 0.5, P = 8: plain CPA goes to 8 (T_CP = T_A at p = 8)
    ("fraction:0.5", 4), ("fraction:0.3", 3), ("sqrt:1", 3), ("sqrt:2", 6),
    # efficiency 1/(0.5 p + 0.5) >= e: e = 0.4 → p <= 4; e = 0.6 → p <= 2.33 → 2
    ("efficiency:0.4", 4), ("efficiency:0.6", 2), ("efficiency:1", 1),
    # area 4: T(4) = 62.5 = 4·62.5/4, the stopping test holds at 4
    ("budget:0.5", 4), ("level:0.25", 2),
])
def test_bound_hand_computed_single_task(bound: str, expected: int) -> None:
    d = single(chain_fork({"x": (100.0, 0.5)}, []), SPEED)
    assert hcpa_alloc(d, 8, bound=HcpaBound.parse(bound)).tolist() == [expected]


def test_bound_caps_and_parsing() -> None:
    d = single(chain_fork({"x": (10.0, 0.0), "y": (10.0, 0.1), "z": (10.0, 0.25)}, []),
               SPEED)
    real = ~d.dummy
    # 1/(αp + 1 − α) >= 0.5 ⟺ p <= (1 + α)/α: α = 0.1 → 11, α = 0.25 → 5; α = 0 → Pb
    assert HcpaBound("efficiency", 0.5).caps(d, 216)[real].tolist() == [216, 11, 5]
    assert HcpaBound("efficiency", 0.5).caps(d, 8)[real].tolist() == [8, 8, 5]
    assert HcpaBound("fraction", 0.4).caps(d, 20)[real].tolist() == [8, 8, 8]  # not 9
    assert HcpaBound("fraction", 0.5).caps(d, 1)[real].tolist() == [1, 1, 1]
    assert HcpaBound("sqrt", 1).caps(d, 216)[0] == 15
    assert HcpaBound("level", 0.5).level_cap(47) == 24 and NO_BOUND.level_cap(47) is None
    assert HcpaBound("budget", 0.5).budget(47) == 24 and NO_BOUND.budget(47) == 47
    with pytest.raises(InvalidInstanceError, match="none takes no value"):
        HcpaBound("none", 0.3)  # decision 416: no value dropped silently
    for b in (1, 2, 5, 47, 120, 216):  # caps never decrease with the budget
        for text in BOUNDS:
            hb = HcpaBound.parse(text)
            assert (hb.caps(d, b) <= hb.caps(d, b + 1)).all()
            assert str(HcpaBound.parse(str(hb))) == str(hb) == text
    for bad in ("fraction:0", "fraction:1.5", "level:-1", "nope:0.5", "fraction", "sqrt:x",
                "efficiency:nan", "none:3", "none:", "literal:0.5", "literal:1"):
        with pytest.raises(InvalidInstanceError):
            HcpaBound.parse(bad)


def test_m_static_never_before_predecessors_and_bottom_levels() -> None:
    g = random_ptg(15, 0.8, 0.8, 0.2, 2, seed=3)
    d = single(g, SPEED)
    p = hcpa_alloc(d, 6)
    bl = bottom_levels(d, p)
    for v in range(d.n):
        for w in d.succs[v]:
            assert bl[v] >= bl[w] + d.time(v, int(p[v])) - 1e-9
    s = m_static(d, p, (-bl,), 6, np.random.default_rng(1))
    pos = {v: k for k, v in enumerate(s.order.tolist())}
    assert all(pos[u] < pos[v] for v in range(d.n) for u in d.preds[v])


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(2, 30), fat=st.sampled_from([0.1, 0.5]),
       jump=st.integers(1, 3), bound=st.sampled_from(["none", "budget:0.65", "sqrt:4"]))
def test_vectorised_batches_equal_the_reference(seed: int, n: int, fat: float, jump: int,
                                                bound: str) -> None:
    """With the vectorised batch tail taking over after one scalar step (fat 0.1 gives
    chains: one long batch per run), every allocation on 48 processors equals the
    one-step-at-a-time reference."""
    d = single(random_ptg(n, fat, 0.3, 0.5, jump, seed=seed), SPEED)
    hb = HcpaBound.parse(bound)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(hcpa_loop, "SCALAR_STEPS", 1)
        every = all_allocs(Trajectory.build(d, 48, hb))
    for b in (1, 5, 17, 31, 47, 48):
        assert np.array_equal(every[b - 1], _naive(d, b, hb)), b


def test_the_vectorised_tail_runs_and_is_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 30-task chain on 200 processors: HCPA's batches are hundreds of increments long,
    so the tail does the work; the result is the reference's."""
    calls = []
    tail = hcpa_loop.Batch.tail

    def counted(self: hcpa_loop.Batch, L: float, area: float) -> tuple[bool, float, float] | None:
        out = tail(self, L, area)
        calls.append(out)
        return out

    monkeypatch.setattr(hcpa_loop.Batch, "tail", counted)
    d = single(random_ptg(30, 0.01, 0.3, 0.5, 1, seed=2), SPEED)
    assert sum(map(len, d.succs)) == d.n - 1  # a chain
    assert np.array_equal(hcpa_alloc(d, 200, bound=NO_BOUND), _naive(d, 200, NO_BOUND))
    assert calls and all(out is not None for out in calls)  # the tail did the increments


@pytest.mark.parametrize("points", [2, 4, 8])
def test_static_makespan_is_m_statics(points: int) -> None:
    """The makespan-only M-STATIC equals M-STATIC's on FFT graphs and on random graphs
    (whose dummy and equal-cost tasks give tied keys, so the random tie-breaker is used),
    for every budget, bit for bit."""
    graphs = [fft_ptg(points, seed=points), random_ptg(25, 0.5, 0.5, 0.5, 2, seed=points)]
    for g in graphs:
        d = single(g, SPEED)
        for procs in range(1, 41, 3):
            p = hcpa_alloc(d, procs)
            keys = (-bottom_levels(d, p),)
            full = m_static(d, p, keys, procs, np.random.default_rng([procs, 1]))
            fast = static_makespan(d, p, keys, procs, np.random.default_rng([procs, 1]))
            assert fast == full.makespan


def _second_path(succs: list[list[int]], path: list[int], on: list[bool], tl: list[float],
                 tt: list[float], bl: list[float]) -> float:
    """The longest path other than ``path`` (reference): through a task off ``path``, or
    through an edge between two of its tasks that are not consecutive on it."""
    best = max((tl[v] + bl[v] for v in range(len(on)) if not on[v]), default=-np.inf)
    nxt = dict(itertools.pairwise(path))
    for u in path:
        for w in succs[u]:
            if on[w] and nxt.get(u) != w:
                best = max(best, tl[u] + tt[u] + bl[w])
    return best


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(3, 25), jump=st.integers(1, 3),
       density=st.sampled_from([0.2, 0.5, 0.9]))
def test_detour_bound_covers_every_other_path(seed: int, n: int, jump: int,
                                              density: float) -> None:
    """After the critical path's tasks speed up by random amounts, the detour bound is at
    least the longest other path recomputed from scratch, and at the start it is the
    plain second-path bound."""
    d = single(random_ptg(n, 0.5, density, 0.5, jump, seed=seed), SPEED)
    rng = np.random.default_rng(seed)
    tt = d.times(rng.integers(1, 9, d.n)).tolist()
    bl, tl = levels.bottom_level_list(d, tt), levels.top_level_list(d, tt)
    sources = [v for v in range(d.n) if not d.preds[v]]
    _, path = levels.critical_path([sorted(s) for s in d.succs], bl, sources)
    on = [v in path for v in range(d.n)]
    det = hcpa_loop.Detours(d.succs, d.preds, path, tl, tt, bl, {})
    assert det.second == _second_path(d.succs, path, on, tl, tt, bl)
    delta = [0.0] * d.n
    for v in path:
        delta[v] = tt[v] * rng.uniform(0, 0.9)
    new = [t - x for t, x in zip(tt, delta, strict=True)]
    bl2, tl2 = levels.bottom_level_list(d, new), levels.top_level_list(d, new)
    assert det.now(delta) >= _second_path(d.succs, path, on, tl2, new, bl2) - 1e-9
    fall = np.array([delta[v] for v in path])
    steps = det.along([0.0] * d.n, np.array(path), fall)
    assert np.allclose(np.atleast_1d(steps)[-1], det.now(delta))


@pytest.mark.parametrize("graph", ["random", "fft", "chain"])
def test_hcpa_makespans_equal_the_schedules(graph: str) -> None:
    """The moldable specification's makespans (allocation reused where budgets share it,
    random ties drawn only when bottom levels tie) equal HCPA_SCHED's for every budget."""
    g = {"random": random_ptg(20, 0.6, 0.4, 0.5, 2, seed=5), "fft": fft_ptg(4, seed=2),
         "chain": random_ptg(12, 0.01, 0.3, 0.5, 1, seed=1)}[graph]
    d = single(g, SPEED)
    allocs = all_allocs(Trajectory.build(d, 40, HcpaBound("budget", 0.65)))  # gain rule: reuse

    def rng(p: int) -> np.random.Generator:
        return np.random.default_rng([7, p])

    fast = hcpa_makespans(d, allocs, rng)
    slow = [hcpa_schedule(d, p, rng(p), a).makespan for p, a in enumerate(allocs, start=1)]
    assert fast.tolist() == slow
    assert any(np.array_equal(a, b) for a, b in itertools.pairwise(allocs))  # reuse tried


def _awkward(kind: str) -> tuple[Dag, int, tuple[int, ...]]:
    """Graphs the fast paths treat apart: tasks with α 0 or 1, a critical path longer than
    the dominator masks allow (> 62 tasks), several PTGs side by side (several sources
    and sinks) beyond 128 tasks (level propagation, fixed bound)."""
    if kind == "alpha 0/1":
        d = single(random_ptg(18, 0.5, 0.4, 0.5, 2, seed=3), SPEED)
        alpha = d.alpha.copy()
        alpha[::3], alpha[1::3] = 1.0, 0.0
        return dataclasses.replace(d, alpha=alpha), 40, (1, 7, 23, 40)
    if kind == "long path":  # 101 tasks, a 72-task critical path with detours
        return single(random_ptg(100, 0.08, 0.3, 0.5, 2, seed=2), SPEED), 48, (5, 48)
    d, _ = flatten([random_ptg(30, 0.5, 0.3, 0.5, 2, seed=100 + k) for k in range(5)], SPEED)
    return d, 24, (7, 24)


@pytest.mark.parametrize("kind", ["alpha 0/1", "long path", "many sources, > 128 tasks"])
@pytest.mark.parametrize("scalar", [100, 1])
def test_awkward_graphs_equal_the_reference(kind: str, scalar: int,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Every budget asked equals the one-step reference, with the vectorised tail as late
    and as early as it goes."""
    monkeypatch.setattr(hcpa_loop, "SCALAR_STEPS", scalar)
    d, top, budgets = _awkward(kind)
    tt = d.times(np.ones(d.n, int)).tolist()
    sources = [v for v in range(d.n) if not d.preds[v]]
    _, path = levels.critical_path([sorted(s) for s in d.succs],
                                   levels.bottom_level_list(d, tt), sources)
    if kind == "alpha 0/1":  # the case is the one named
        assert d.alpha.min() == 0 and d.alpha.max() == 1
    elif kind == "long path":  # too long for the masks, with detours
        assert hcpa_loop.LONGEST_MASKED_PATH < len(path) < d.n
    else:
        assert len(sources) > 1 and d.n > hcpa_loop.SMALL
    every = all_allocs(Trajectory.build(d, top, NO_BOUND))
    for b in budgets:
        assert np.array_equal(every[b - 1], _naive(d, b, NO_BOUND)), b


@pytest.mark.parametrize("fallback", ["no shared increment list", "keys not monotone"])
def test_fallbacks_of_the_tail_are_exact(fallback: str, monkeypatch: pytest.MonkeyPatch,
                                         ) -> None:
    """When the shared list cannot be used (a task's keys not monotone in floating point)
    the batch sorts its own increments; when those are not monotone either it goes on one
    increment at a time. Both give the reference's allocations."""
    monkeypatch.setattr(hcpa_loop, "SCALAR_STEPS", 1)
    real_init = hcpa_loop.Gains.__init__

    def not_ok(self: hcpa_loop.Gains, dag: Dag, top: int) -> None:
        real_init(self, dag, top)
        self.ok = False

    monkeypatch.setattr(hcpa_loop.Gains, "__init__", not_ok)
    merged = []
    if fallback == "keys not monotone":
        monkeypatch.setattr(hcpa_loop.Batch, "_merge", lambda self: merged.append(1))
    d = single(random_ptg(16, 0.3, 0.4, 0.5, 2, seed=8), SPEED)
    every = all_allocs(Trajectory.build(d, 32, NO_BOUND))
    for b in (3, 17, 32):
        assert np.array_equal(every[b - 1], _naive(d, b, NO_BOUND)), b
    assert bool(merged) == (fallback == "keys not monotone")


@pytest.mark.parametrize("bound", ["literal", "none", "budget:0.65", "fraction:0.5",
                                   "sqrt:2", "efficiency:0.5", "level:0.5"])
def test_a_sequential_task_never_gets_a_second_processor(bound: str) -> None:
    """A task of α = 1 (a workflow task recorded on one core) takes the same time on any
    number of processors: every bound caps it at one [L216-218: the task "that would
    benefit"]. Without the cap the literal rule (whose key T(v, p+1)/(p+1) falls as p grows)
    and plain CPA both gave the 100 s task of this chain all 32 processors."""
    g = chain_fork({"s": (100.0, 1.0), "q": (50.0, 0.1)}, [("s", "q")])
    d = single(g, SPEED)
    hb = HcpaBound.parse(bound)
    s = g.ids.index("s")
    assert hb.caps(d, 32)[s] == 1 and hb.caps(d, 32)[g.ids.index("q")] > 1
    p = hcpa_alloc(d, 32, bound=hb)
    assert p[s] == 1 and p[g.ids.index("q")] > 1
    assert [a[s] for a in all_allocs(Trajectory.build(d, 32, hb))] == [1] * 32


def test_every_algorithm_keeps_sequential_tasks_on_one_processor() -> None:
    from lpsched.ptg.problem import Problem
    from lpsched.ptg.registry import ALGORITHMS, run
    from tests.ptg.helpers import small_cluster

    seq = chain_fork({"a": (13.5, 1.0), "b": (2.5, 1.0), "c": (8.0, 0.25)},
                     [("a", "b"), ("c", "b")], "dax")
    other = fft_ptg(4, seed=1, name="fft")
    pb = Problem([seq, other], small_cluster(16))
    for name in ALGORITHMS:
        r = run(pb, name)
        owned = np.flatnonzero(r.schedule.owner == 0)  # the first PTG's tasks, in order
        assert r.valid, name
        held = {seq.ids[v]: int(r.schedule.alloc[k]) for v, k in
                zip(range(seq.n), owned, strict=True) if not seq.dummy[v]}
        assert held["a"] == held["b"] == 1, (name, held)
