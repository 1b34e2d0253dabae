"""The compiled plan (``lpsched/batch/_plan_c.pyx``) gives the Python plan's answers bit for
bit: the same breakpoints and free counts after every edit, the same fits, the same tables,
the same errors, on random edit sequences (times on a grid, so breakpoints are often hit
exactly, and off it; infinite ends; starts before the plan; slots let go), and the same
schedules on a real trace's reproduction. Skipped where the extension is not built."""

from __future__ import annotations

import copy
import csv
import io
import math
import os
import pickle
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lpsched.batch import plan
from lpsched.batch.plan import Profile, PythonProfile
from lpsched.errors import InvalidInstanceError
from tests.shared_data import needs_shared, shared_file

_plan_c = pytest.importorskip("lpsched.batch._plan_c")

KTH = "KTH-SP2-1996-2.1-cln.swf.gz"
LPSCHED = Path(sys.executable).with_name("lpsched")
TIMING = re.compile(r"seconds|per_second|wall|elapsed|cpu|^time$|_time$", re.IGNORECASE)


def _same_state(c: object, p: PythonProfile) -> None:
    assert c.times.tolist() == p.times.tolist()  # type: ignore[attr-defined]
    assert c.free.tolist() == p.free.tolist()  # type: ignore[attr-defined]
    assert c.free.dtype == p.free.dtype == np.int64  # type: ignore[attr-defined]


def _answer(call):
    try:
        out = call()
    except (InvalidInstanceError, IndexError, ValueError) as exc:
        return type(exc).__name__, str(exc)
    return out.tolist() if isinstance(out, np.ndarray) else out


def _untimed(text: str) -> list[list[str]]:
    """A CSV's rows without the columns that measure time (``seconds``)."""
    table = list(csv.reader(io.StringIO(text)))
    keep = [i for i, name in enumerate(table[0]) if not TIMING.search(name)] if table else []
    return [[row[i] for i in keep if i < len(row)] for row in table]


def _pair(now: float, free: int) -> tuple[object, PythonProfile]:
    return _plan_c.Profile(now, free), PythonProfile(now, free)


def _time(rng: np.random.Generator, lo: float, hi: float) -> float:
    if rng.random() < 0.5:
        return float(lo + 2.5 * rng.integers(0, int((hi - lo) / 2.5) + 1))
    return float(rng.uniform(lo - 2.0, hi))


def _queries(rng: np.random.Generator, c: object, p: PythonProfile, m: int) -> None:
    t0, tn = float(p.times[0]), float(p.times[-1]) + 5.0
    for _ in range(6):
        size = int(rng.integers(0, m + 3))
        length = float(rng.choice([0.5, 1.0, 1.0 + 1e-12, 2.5, 7.0, 40.0, 1e-12, math.inf]))
        after = None if rng.random() < 0.5 else _time(rng, t0, tn)
        assert _answer(lambda: c.earliest(size, length, after)) \
            == _answer(lambda: p.earliest(size, length, after))  # noqa: B023
    for _ in range(4):
        size, length = int(rng.integers(1, m + 1)), float(rng.integers(1, 15))
        rs = _time(rng, t0, tn)
        rs = max(rs, t0)
        re = rs + length * float(rng.choice([1.0, 1.5]))
        assert _answer(lambda: c.earlier_fit(size, length, rs, re)) \
            == _answer(lambda: p.earlier_fit(size, length, rs, re))  # noqa: B023
    sizes = rng.integers(0, m + 3, int(rng.integers(1, 30)))
    top, least = int(sizes.max()), int(sizes.min())
    assert _answer(lambda: c.held_until(top, least)) == _answer(lambda: p.held_until(top, least))
    assert _answer(lambda: c.held_until(top)) == _answer(lambda: p.held_until(top))
    assert _answer(lambda: c.held_for(sizes)) == _answer(lambda: p.held_for(sizes))
    assert _answer(lambda: c.reached_at(sizes)) == _answer(lambda: p.reached_at(sizes))
    few = sizes[:3]
    assert _answer(lambda: c.reached_at(few)) == _answer(lambda: p.reached_at(few))


@pytest.mark.filterwarnings("ignore:invalid value")  # inf - inf in the Python plan's search
@pytest.mark.parametrize("seed", range(40))
def test_random_edit_sequences_give_the_python_plans_answers(seed: int) -> None:
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 33))
    c, p = _pair(float(rng.integers(0, 5)), int(rng.integers(0, m + 1)))
    held: list[tuple[float, float, int]] = []
    for step in range(400):
        t0 = float(p.times[0])
        roll = rng.random()
        if roll < 0.45:  # a reservation where it fits, as the simulator makes one
            size, length = int(rng.integers(1, m + 1)), float(rng.integers(1, 20))
            try:
                t = p.earliest(size, length)
            except InvalidInstanceError:
                continue
            assert c.earliest(size, length) == t
            c.reserve(t, length, size)
            p.reserve(t, length, size)
            held.append((t, t + length, size))
        elif roll < 0.65 and held:  # a slot let go
            a, b, size = held.pop(int(rng.integers(0, len(held))))
            c.add(a, b, size)
            p.add(a, b, size)
        elif roll < 0.85:  # any edit: off the plan's start, infinite, empty, reversed
            start = _time(rng, t0 - 3.0, t0 + 60.0)
            end = math.inf if rng.random() < 0.1 else start + float(rng.uniform(-1.0, 12.0))
            delta = int(rng.integers(-8, 9))
            c.add(start, end, delta)
            p.add(start, end, delta)
        elif roll < 0.93:
            now = t0 + float(rng.choice([0.0, 0.5, 2.5, float(rng.uniform(0, 8))]))
            c.trim(now)
            p.trim(now)
        else:
            _queries(rng, c, p, m)
        _same_state(c, p)
        if step % 25 == 0:
            _queries(rng, c, p, m)


@pytest.mark.filterwarnings("ignore:invalid value")
@pytest.mark.parametrize("seed", range(10))
def test_long_plans_merge_and_fit_alike(seed: int) -> None:
    """Past 64 breakpoints :meth:`trim` merges equal neighbours: both plans merge alike."""
    rng = np.random.default_rng(100 + seed)
    c, p = _pair(0.0, 64)
    for _ in range(600):
        start = float(rng.uniform(0, 1000))
        end, delta = start + float(rng.uniform(0.5, 40)), int(rng.integers(-6, 4))
        c.add(start, end, delta)
        p.add(start, end, delta)
        if rng.random() < 0.2:  # a split that changes nothing: a breakpoint trim merges
            c.add(start + 0.25, end, 0)
            p.add(start + 0.25, end, 0)
    for now in (0.0, 3.5, 200.0, 750.25):
        c.trim(now)
        p.trim(now)
        _same_state(c, p)
        _queries(rng, c, p, 64)


def test_from_releases_copy_and_pickle_keep_the_plan() -> None:
    ends, sizes = np.array([3.0, 3.0, 7.0, -1.0, 0.0]), np.array([1, 2, 4, 5, 2])
    c = _plan_c.Profile.from_releases(0.0, 2, ends, sizes)
    p = PythonProfile.from_releases(0.0, 2, ends, sizes)
    _same_state(c, p)
    assert c.times.tolist() == [0.0, 3.0, 7.0] and c.free.tolist() == [9, 12, 16]
    for twin in (copy.deepcopy(c), pickle.loads(pickle.dumps(c))):
        _same_state(twin, p)
        twin.add(1.0, 2.0, -3)
        _same_state(c, p)  # an independent copy
    _same_state(_plan_c.Profile.from_releases(4.0, 3, np.array([]), np.array([], int)),
                PythonProfile.from_releases(4.0, 3, np.array([]), np.array([], int)))


@pytest.mark.filterwarnings("ignore:invalid value")
def test_no_fit_raises_the_python_plans_error() -> None:
    c, p = _pair(0.0, 4)
    c.add(2.0, 5.0, -3)
    p.add(2.0, 5.0, -3)
    for size, length in ((5, 1.0), (4, math.inf), (2, math.inf)):
        assert _answer(lambda: c.earliest(size, length)) \
            == _answer(lambda: p.earliest(size, length))  # noqa: B023
    with pytest.raises(InvalidInstanceError, match="size = 5: no time ever has enough"):
        c.earliest(5, 1.0)
    assert _answer(lambda: c.held_for(np.array([], np.int64))) \
        == _answer(lambda: p.held_for(np.array([], np.int64)))


def test_profile_builds_the_compiled_plan_unless_python_is_forced(monkeypatch) -> None:
    monkeypatch.delenv(plan.PURE_PYTHON, raising=False)
    assert plan.kernel_in_use() == "compiled"
    assert isinstance(Profile(0.0, 4), _plan_c.Profile)
    assert isinstance(Profile.from_releases(0.0, 4, np.array([1.0]), np.array([2])),
                      _plan_c.Profile)
    monkeypatch.setenv(plan.PURE_PYTHON, "1")
    assert plan.kernel_in_use() == "python (LPSCHED_PURE_PYTHON is set)"
    prof = Profile.from_releases(0.0, 4, np.array([1.0]), np.array([2]))
    assert type(prof) is Profile and isinstance(Profile(0.0, 4), PythonProfile)
    assert prof.times.tolist() == [0.0, 1.0] and prof.free.tolist() == [4, 6]


@needs_shared(KTH)
@pytest.mark.skipif(not LPSCHED.exists(), reason="the installed command is missing")
def test_platform_level_reproduction_is_the_same_with_either_plan(tmp_path: Path) -> None:
    """The conservative reproduction (reassign compression, seven allocators) on a real
    trace stores the same rows with the compiled and the Python plans."""
    rows = {}
    for name, pure in (("compiled", "0"), ("python", "1")):
        out = tmp_path / name
        env = {**os.environ, plan.PURE_PYTHON: pure,
               "LPSCHED_DATA": str(shared_file(KTH).parent)}
        proc = subprocess.run(
            [str(LPSCHED), "reproduce", "platform-level", "--trace",
             KTH, "--instances", "1", "--out", str(out),
             "--quiet"], capture_output=True, text=True, env=env, timeout=600)
        assert proc.returncode == 0, proc.stderr[-2000:]
        rows[name] = sorted(_untimed(path.read_text()) for path in out.rglob("*.csv"))
        assert rows[name]
    assert rows["compiled"] == rows["python"]


@pytest.mark.parametrize("seed", range(30))
def test_reassign_test_gives_the_python_plans_answer(seed: int) -> None:
    """:meth:`reassign_test` (the plan's half of reassign's test) narrows ``ok`` as the
    Python class's numpy steps do, on either side of the table-or-sizes choice."""
    rng = np.random.default_rng(300 + seed)
    m = int(rng.integers(2, 40))
    c, p = _pair(0.0, m)
    for _ in range(int(rng.integers(0, 80))):
        start = _time(rng, 0.0, 60.0)
        end, delta = start + float(rng.uniform(0.5, 20)), int(rng.integers(-5, 4))
        c.add(start, end, delta)
        p.add(start, end, delta)
    now = float(rng.choice([0.0, 2.5, 10.0]))
    jobs = int(rng.integers(0, 3 * m))
    ok = rng.random(jobs) < 0.7
    rs = np.where(rng.random(jobs) < 0.5, rng.integers(0, 25, jobs) * 2.5,
                  rng.uniform(-1, 60, jobs))
    size = rng.integers(0, m + 2, jobs)
    until = np.minimum(rs, now + rng.uniform(0, 30, jobs))
    want, got = ok.copy(), ok.copy()
    p.reassign_test(want, rs, size, until, now)
    c.reassign_test(got, rs, size, until, now)
    assert got.tolist() == want.tolist()
    if jobs > 1:  # strided and other dtypes take the numpy steps, with the same answer
        got = ok.copy()
        c.reassign_test(got, np.repeat(rs, 2)[::2], size.astype(np.int32), until, now)
        assert got.tolist() == want.tolist()


def test_without_the_extension_profile_builds_the_python_plan(monkeypatch) -> None:
    """An install without Cython or a compiler runs the Python plan."""
    monkeypatch.delenv(plan.PURE_PYTHON, raising=False)
    monkeypatch.setattr(plan, "_plan_c", None)
    assert plan.kernel_in_use() == "python (the extension lpsched.batch._plan_c is not built)"
    prof = Profile(0.0, 4)
    assert isinstance(prof, PythonProfile)
    prof.reserve(1.0, 2.0, 3)
    assert prof.earliest(2, 2.0) == 3.0 and prof.free.tolist() == [4, 1, 4]
