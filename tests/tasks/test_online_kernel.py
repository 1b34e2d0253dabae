"""The compiled event loop of the online policies (``lpsched.tasks._online_c``) against the
Python one (:class:`lpsched.tasks.simulator._Sim`, the reference): the same pieces, the same
completion times and the same event counts, bit for bit, on random instances built to
cross the simulator's ties (integer releases and lengths, many equal values), on every
policy of the chapter with its redirection parameters, and on windows of a real trace."""

from __future__ import annotations

import numpy as np
import pytest

from lpsched.tasks import simulator
from lpsched.tasks.instance import TaskInstance
from lpsched.tasks.policies import ALL_POLICIES, get_policy
from tests.shared_data import needs_shared, shared_file

pytestmark = pytest.mark.skipif(simulator._online_c is None,
                                reason="the extension lpsched.tasks._online_c is not built")


def _python(inst: TaskInstance, pol) -> object:
    sim = simulator._Sim(inst, pol.check(inst.processors))
    sim.run()
    return sim.schedule(0.0)


def _same(inst: TaskInstance, pol) -> None:
    a = simulator.simulate(inst, pol)
    b = _python(inst, pol)
    for name in ("task", "proc", "start", "end", "kind", "completion"):
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype, name
        assert x.tobytes() == y.tobytes(), (pol.name, name)
    assert a.stats["events"] == b.stats["events"]
    assert (a.main, a.processors, a.preemptive, a.migratory, a.restarts) == (
        b.main, b.processors, b.preemptive, b.migratory, b.restarts)


def _instance(seed: int, n: int, m: int, ties: bool) -> TaskInstance:
    rng = np.random.default_rng(seed)
    if ties:
        release = np.sort(rng.integers(0, n // 2 + 1, n)).astype(float)
        p = rng.integers(1, 6, n).astype(float)
    else:
        release = np.cumsum(rng.exponential(3.0, n))
        p = rng.lognormal(1.0, 1.5, n)
        p[rng.random(n) < 0.05] *= 50  # a few long tasks, the redirections' targets
    return TaskInstance(m, release, p)


def _policies(m: int) -> list:
    md = max(1, m // 4)
    pols = []
    for name in ALL_POLICIES:
        if name.endswith("-rd"):
            pols += [get_policy(name, md=md, tau=tau) for tau in (1.0, 2.0, 3.5)]
        elif name.endswith("-rr"):
            pols += [get_policy(name, md=md, b=b, c=c, seed=s)
                     for b, c, s in ((0.02, 0.8, 0), (0.3, 1.0, 5), (0.0, 0.5, 9))]
        else:
            pols.append(get_policy(name))
    return pols


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("m", [2, 3, 8, 17])
@pytest.mark.parametrize("ties", [True, False])
def test_compiled_loop_equals_the_python_loop(seed, m, ties):
    inst = _instance(seed * 31 + m, 300, m, ties)
    for pol in _policies(m):
        _same(inst, pol)


def test_one_processor_and_one_task():
    one = TaskInstance(1, [0.0], [3.0])
    two = TaskInstance(2, [0.0, 0.0, 1.0], [4.0, 4.0, 1.0])
    for pol in [get_policy(n) for n in ALL_POLICIES if "-r" not in n]:
        _same(one, pol)
    for pol in _policies(2):
        _same(two, pol)


def test_pure_python_is_forced_by_the_environment(monkeypatch):
    monkeypatch.setenv(simulator.PURE_PYTHON, "1")
    assert simulator.kernel_in_use() == "python (LPSCHED_PURE_PYTHON is set)"
    monkeypatch.setenv(simulator.PURE_PYTHON, "0")
    assert simulator.kernel_in_use() == "compiled"


KTH_NAME = "KTH-SP2-1996-2.1-cln.swf.gz"


@needs_shared(KTH_NAME)
@pytest.mark.parametrize("seed", [3, 500])
def test_real_trace_windows_as_the_python_loop(seed):
    from lpsched.tasks import reproduce as rep

    KTH = str(shared_file(KTH_NAME))
    inst = rep.instance(KTH, seed)
    for name, params in [(c[2], c[3]) for c in rep.comparison_cells([KTH], 1, seed)]:
        pol = get_policy(name, seed=seed, **params)
        if not (pol.redirect and pol.md >= inst.processors):
            _same(inst, pol)


def test_without_the_extension_the_python_loop_runs(monkeypatch):
    inst = _instance(5, 120, 3, True)
    pol = get_policy("spt-rd", md=1, tau=2.0)
    compiled = simulator.simulate(inst, pol)
    monkeypatch.setattr(simulator, "_online_c", None)
    assert simulator.kernel_in_use() == ("python (the extension lpsched.tasks._online_c is "
                                         "not built)")
    fallback = simulator.simulate(inst, pol)
    assert fallback.completion.tobytes() == compiled.completion.tobytes()
    assert fallback.start.tobytes() == compiled.start.tobytes()
