"""The seeds' manifests: every published experimental result listed once, well formed; and
every entry answered by a row of its experiment's seed-vs-ours table at every run size
(the report hooks called on an empty store give every row, not measured)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lpsched.core.store import ResultStore
from lpsched.report.manifest import EXPERIMENTS, SEEDS, STATIC, manifest
from lpsched.report.parts import HOOKS, hook

KINDS = {"table", "figure", "direction", "range", "value", "ranking", "crossover", "count",
         "setup"}
SOURCE = re.compile(r"^(Table|Figure) \d+(\.\d+)?$|^text$")
LINES = re.compile(r"^\d{3} L\d+")


@pytest.mark.parametrize("seed", list(SEEDS))
def test_a_manifest_is_well_formed(seed: str) -> None:
    entries = manifest(seed)
    assert entries, seed
    for e in entries:
        assert e.id.startswith(f"{seed}-") and e.seed == seed, e.id
        assert SOURCE.match(e.source), (e.id, e.source)
        assert LINES.match(e.seed_lines) and e.seed_lines.startswith(seed), (e.id, e.seed_lines)
        assert e.kind in KINDS, (e.id, e.kind)
        assert e.claim.strip(), e.id
        assert e.experiment in EXPERIMENTS or e.experiment == "none", (e.id, e.experiment)
        if e.experiment in EXPERIMENTS:
            assert EXPERIMENTS[e.experiment] == seed, (e.id, e.experiment)


def _empty_store(tmp_path: Path) -> ResultStore:
    return ResultStore(tmp_path / "empty.sqlite")


@pytest.mark.parametrize("experiment", sorted(HOOKS))
def test_every_entry_has_a_row_at_every_size(experiment: str, tmp_path: Path) -> None:
    seed = EXPERIMENTS[experiment]
    store = None if experiment in STATIC else _empty_store(tmp_path)
    part = hook(experiment)(store, experiment, tmp_path / "figures")
    refs = {r.ref for r in part.table.rows}
    wanted = {e.id for e in manifest(seed) if e.experiment == experiment}
    missing = sorted(wanted - refs)
    assert not missing, f"{experiment}: {len(missing)} manifest entries have no row: {missing}"
    for row in part.table.rows:
        assert row.source and row.seed_line.startswith(seed), (row.ref, row.seed_line)


@pytest.mark.parametrize("seed", list(SEEDS))
def test_entries_of_no_experiment_have_a_row_in_the_seeds_tables(seed: str,
                                                                 tmp_path: Path) -> None:
    """An entry no simulation can measure (``none``) still has a row, in one of the seed's
    experiments' tables, saying why it is not measured."""
    loose = {e.id for e in manifest(seed) if e.experiment == "none"}
    if not loose:
        pytest.skip(f"seed {seed} has no such entry")
    refs: set[str] = set()
    for experiment, owner in EXPERIMENTS.items():
        if owner == seed:
            store = None if experiment in STATIC else _empty_store(tmp_path)
            part = hook(experiment)(store, experiment, tmp_path / experiment)
            refs |= {r.ref for r in part.table.rows}
    assert not sorted(loose - refs), sorted(loose - refs)
