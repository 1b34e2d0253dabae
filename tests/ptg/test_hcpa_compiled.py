"""The compiled literal-HCPA loop (``lpsched.ptg._hcpa_c``, decision 640) against the Python
loop it replaces (:func:`lpsched.ptg.hcpa_literal.literal_alloc_python`): the same
allocations bit for bit on the study's graphs and on random graphs of every ``α`` the loop
treats apart (0, below ``MONOTONE_ALPHA``, 1), with caps, stopping budgets and composite
graphs of several sources; ``LPSCHED_PURE_PYTHON`` forces the Python loop."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest

from lpsched.ptg import hcpa_literal
from lpsched.ptg.generators import build_member, fft_ptg, population, random_ptg, strassen_ptg
from lpsched.ptg.hcpa import DEFAULT_BOUND, Trajectory, all_allocs
from lpsched.ptg.hcpa_literal import (
    MONOTONE_ALPHA,
    literal_alloc,
    literal_alloc_python,
    literal_alloc_reference,
)
from lpsched.ptg.model import CLUSTERS, PTG, flatten, single

compiled = pytest.mark.skipif(hcpa_literal._hcpa_c is None,
                              reason="the extension lpsched.ptg._hcpa_c is not built")


def _with_alphas(g: PTG, rng: np.random.Generator) -> PTG:
    """``g`` with every real task's ``α`` drawn from the values the loop treats apart."""
    choices = np.array([0.0, MONOTONE_ALPHA / 10, MONOTONE_ALPHA, 0.05, 0.25, 0.9, 1.0])
    alpha = np.where(g.dummy, g.alpha, rng.choice(choices, g.alpha.size))
    return replace(g, alpha=alpha)


@compiled
@pytest.mark.parametrize("seed", range(4))
def test_compiled_equals_python_on_random_graphs(seed: int, monkeypatch: pytest.MonkeyPatch,
                                                 ) -> None:
    rng = np.random.default_rng(seed)
    graphs = [random_ptg(n=int(rng.integers(5, 45)), fat=float(rng.uniform(0.2, 0.9)),
                         density=float(rng.uniform(0.1, 0.9)), jump=int(rng.integers(1, 4)),
                         seed=seed),
              fft_ptg((2, 4, 8, 16)[seed], seed=seed), strassen_ptg(seed=seed)]
    graphs += [_with_alphas(g, rng) for g in graphs]
    dags = [single(g, 3.3e9) for g in graphs]
    dags.append(flatten(graphs[:3], 3.3e9)[0])  # a composite graph: several sources
    for d in dags:
        for P in (1, 2, 3, 7, 20, 47, 120):
            lim = rng.integers(1, P + 1, d.n)
            stop = int(rng.integers(1, P + 1))
            for args in ((P,), (P, lim), (P, lim, stop), (P, None, stop)):
                fast = literal_alloc(d, *args)  # type: ignore[arg-type]
                ref = literal_alloc_python(d, *args)  # type: ignore[arg-type]
                assert fast.dtype == ref.dtype and np.array_equal(fast, ref), (d.n, args)
            if P <= 20 and d.n <= 45:
                assert np.array_equal(literal_alloc(d, P), literal_alloc_reference(d, P))


@compiled
def test_compiled_equals_python_on_the_study_budgets() -> None:
    """Every budget ``b = 1..P`` of the literal HCPA (the moldable specification's input)
    on members of the three populations on two of Table 1's clusters."""
    for cls, members in (("random", (0, 700, 1295)), ("fft", (5, 119)), ("strassen", (42,))):
        pop = population(cls)
        for m in members:
            g = build_member(pop[m], 0)
            for cluster in (CLUSTERS["chti"], CLUSTERS["grelon"]):
                d = single(g, cluster.speed)
                for b in range(1, cluster.processors + 1):
                    lim = DEFAULT_BOUND.caps(d, b)
                    assert np.array_equal(literal_alloc(d, b, lim, b),
                                          literal_alloc_python(d, b, lim, b)), (cls, m, b)


@compiled
def test_every_budget_at_once_equals_one_at_a_time() -> None:
    """:func:`all_allocs` of the literal HCPA (every budget in one compiled call) against
    the Python loop budget by budget, with tasks of ``α = 1`` (capped at one processor)."""
    rng = np.random.default_rng(9)
    for g in (fft_ptg(8, seed=2), _with_alphas(strassen_ptg(seed=1), rng),
              _with_alphas(random_ptg(n=30, fat=0.5, density=0.5, jump=2, seed=4), rng)):
        d = single(g, 3.3e9)
        allocs = all_allocs(Trajectory.build(d, 47, DEFAULT_BOUND))
        assert len(allocs) == 47
        for b, p in enumerate(allocs, start=1):
            ref = literal_alloc_python(d, b, DEFAULT_BOUND.caps(d, b), b)
            assert p.dtype == ref.dtype and np.array_equal(p, ref), b


def test_pure_python_variable_forces_the_python_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(hcpa_literal.PURE_PYTHON, "1")
    assert hcpa_literal.kernel_in_use() == "python (LPSCHED_PURE_PYTHON is set)"
    d = single(fft_ptg(4, seed=1), 3.3e9)
    assert hcpa_literal._compiled_graph(d) is None
    assert np.array_equal(literal_alloc(d, 20), literal_alloc_reference(d, 20))
    monkeypatch.setenv(hcpa_literal.PURE_PYTHON, "0")
    expected = "compiled" if hcpa_literal._hcpa_c is not None else (
        "python (the extension lpsched.ptg._hcpa_c is not built)")
    assert hcpa_literal.kernel_in_use() == expected


def test_non_finite_times_run_the_python_loop() -> None:
    """The compiled exact sum takes finite terms: a graph with an infinite time is left to
    the Python loop (the same answer either way)."""
    g = fft_ptg(2, seed=0)
    work = np.where(g.dummy, g.work, np.inf)
    d = single(replace(g, work=work), 3.3e9)
    assert hcpa_literal._compiled_graph(d) is None


def test_a_child_interpreter_with_the_variable_runs_python() -> None:
    code = ("from lpsched.ptg.hcpa_literal import kernel_in_use; print(kernel_in_use())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={"LPSCHED_PURE_PYTHON": "1", "PATH": ""}, check=True)
    assert out.stdout.strip() == "python (LPSCHED_PURE_PYTHON is set)"
