"""The per-process caches a reproduction lets go of (lpsched.core.caches) and when the
runner's workers do it."""

from __future__ import annotations

import functools
from typing import Any

import pytest

from lpsched.core import caches, runner


@functools.lru_cache(maxsize=4)
def _squared(x: int) -> int:
    return x * x


def _cell_here(cell: Any) -> list[dict[str, Any]]:
    return [{"value": _squared(int(cell))}]


@pytest.fixture(autouse=True)
def _registered() -> Any:
    caches.register(_squared)
    _squared.cache_clear()
    runner._LAST_MODULE["module"] = None
    yield
    caches._REGISTERED.remove(_squared)
    runner._LAST_MODULE["module"] = None


def test_release_empties_every_registered_cache() -> None:
    _squared(3)
    _squared(4)
    assert _squared.cache_info().currsize == 2
    caches.release()
    assert _squared.cache_info().currsize == 0
    assert _squared(3) == 9  # computed again, the same


def test_register_twice_keeps_one_entry() -> None:
    caches.register(_squared, _squared)
    assert caches._REGISTERED.count(_squared) == 1


def test_the_reproductions_register_their_trace_caches() -> None:
    from lpsched.batch import reproduce as batch
    from lpsched.campaigns import reproduce as campaigns
    from lpsched.tasks import reproduce as tasks

    for cached in (batch._load_trace, tasks._trace, tasks.instance, tasks._bounds,
                   campaigns._read_trace_cached, campaigns._egee_workload_cached):
        assert cached in caches._REGISTERED


def test_a_worker_keeps_its_caches_within_one_module() -> None:
    runner._batch(_cell_here, [1, 2])
    runner._batch(_cell_here, [3])
    assert _squared.cache_info().currsize == 3


def test_a_worker_lets_them_go_when_it_passes_to_another_module() -> None:
    runner._batch(_cell_here, [1, 2])
    assert _squared.cache_info().currsize == 2
    other = functools.partial(_cell_from_elsewhere)
    out, caught = runner._batch(other, [5])
    assert _squared.cache_info().currsize == 0  # released before the other module's cells
    assert out == [(5, [{"value": 5}])] and caught == []
    assert runner._LAST_MODULE["module"] == "json"


def _identity_rows(cell: Any) -> list[dict[str, Any]]:
    return [{"value": cell}]


# a cell function whose module is another one (as another family's experiment is)
_identity_rows.__module__ = "json"
_cell_from_elsewhere = _identity_rows


@pytest.mark.parametrize("release", [True, False])
def test_run_plans_lets_the_parent_caches_go_before_its_pool(tmp_path: Any,
                                                               release: bool) -> None:
    from lpsched.core.store import ResultStore

    _squared(7)
    plan = runner.Plan("squares", [1, 2, 3], _cell_here, ResultStore(tmp_path / "s.sqlite"))
    try:
        assert runner.run_plans([plan], jobs=2, progress=False,
                                release_caches=release) == [3]
        assert sorted(r["value"] for r in plan.store.rows("squares")) == [1, 4, 9]
    finally:
        plan.store.close()
    assert _squared.cache_info().currsize == (0 if release else 1)
