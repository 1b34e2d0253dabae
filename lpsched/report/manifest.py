"""The manifests of the seeds' published experimental results, CSV files per seed.

A seed's manifest is the union of ``manifests/seed<NNN>*.csv`` (seed 000, a thesis, has one
file per chapter group: ``seed000_ch2.csv``, ``seed000_ch3.csv``, ``seed000_ch45.csv``).

A manifest lists every table and figure of a seed's experiment sections and every
quantitative sentence there and in the abstract and conclusion (and the set-up facts a
reproduction must respect), one entry each: ``id`` (``003-T4``, ``000-L2951``,
``003-S-instances``), ``seed``, ``source`` (``Table N``, ``Figure N`` or ``text``),
``seed_lines``, ``kind`` (``table``, ``figure``, ``direction``, ``range``, ``value``,
``ranking``, ``crossover``, ``count``, ``setup``), ``section``, ``claim`` (what is
published, in a sentence), ``values`` (the printed numbers) and ``experiment`` (the
``lpsched reproduce`` that measures it, or ``hardware`` / ``none`` when no simulation can).
Every entry has a row in its experiment's seed-vs-ours table (``ref`` = the entry's id),
at every run size; ``tests/report/test_manifests.py`` fails on an entry without one.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

__all__ = ["COMPANIONS", "EXPERIMENTS", "SEEDS", "STATIC", "Entry", "first_line", "manifest"]

#: the five seeds: file stem and title (the report's page titles)
SEEDS: dict[str, str] = {
    "000": "Seed 000: scheduling on heterogeneous and hierarchical platforms (thesis: "
           "CPU+GPU dual approximation, online stretch with redirection, contiguity and "
           "platform-level backfilling)",
    "001": "Seed 001: effects of topology-aware allocation policies on scheduling "
           "performance",
    "002": "Seed 002: the management of multiple submissions in parallel systems, the fair "
           "scheduling approach (campaign scheduling)",
    "003": "Seed 003: offline and online scheduling of concurrent bags-of-tasks on "
           "heterogeneous platforms",
    "004": "Seed 004: offline scheduling of multiple parallel task graphs on a homogeneous "
           "cluster",
}

#: each reproduction and the seed whose results it measures; ``hardware`` is seed 000
#: ch. 2's CPU+GPU measurements, which no store holds (its rows say what a simulation of
#: the scheduling part shows and what it cannot)
EXPERIMENTS: dict[str, str] = {
    "cbs3m": "003", "contiguity": "000", "platform-level": "000", "redirection": "000",
    "topology-aware": "001", "faircamp": "002", "ostrich": "002", "ptg": "004",
    "hardware": "000",
}

#: the experiments whose rows need no store: their hook is called with ``store=None``
STATIC = frozenset({"hardware"})

#: stores read by another experiment's hook beside its own store: ``reproduce redirection
#: --tune`` writes ``redirection-tuning`` (Figs 3.3-3.13), which the redirection hook reads
#: from the same folder
COMPANIONS: dict[str, str] = {"redirection-tuning": "redirection"}

COLUMNS = ("id", "seed", "source", "seed_lines", "kind", "section", "claim", "values",
           "experiment")


@dataclass(frozen=True)
class Entry:
    """One published result of a seed (the module doc names the fields)."""

    id: str
    seed: str
    source: str
    seed_lines: str
    kind: str
    section: str
    claim: str
    values: str
    experiment: str


def first_line(entry: Entry) -> int:
    """The first seed line an entry cites (its place in the seed's order).

    Parameters
    ----------
    entry : Entry
        A manifest entry.

    Returns
    -------
    int
        The smallest ``L<n>`` of ``entry.seed_lines`` (0 when none).
    """
    lines = [int(n) for n in re.findall(r"L(\d+)", entry.seed_lines)]
    return min(lines, default=0)


@cache
def manifest(seed: str) -> tuple[Entry, ...]:
    """The manifest of one seed, in the seed's order (first line cited, then file order).

    Parameters
    ----------
    seed : str
        ``"000"`` to ``"004"``.

    Returns
    -------
    tuple of Entry

    Raises
    ------
    KeyError
        ``seed`` is not one of :data:`SEEDS`.
    ValueError
        A file's columns are not :data:`COLUMNS`, or an id repeats.
    """
    if seed not in SEEDS:
        raise KeyError(f"seed {seed!r}: one of {', '.join(SEEDS)}")
    folder = resources.files("lpsched.report").joinpath("manifests")
    entries = []
    for item in sorted(folder.iterdir(), key=lambda f: f.name):
        if not (item.name.startswith(f"seed{seed}") and item.name.endswith(".csv")):
            continue
        reader = csv.DictReader(io.StringIO(item.read_text(encoding="utf-8")))
        if tuple(reader.fieldnames or ()) != COLUMNS:
            raise ValueError(f"manifest {item.name}: columns {reader.fieldnames}, "
                             f"expected {COLUMNS}")
        entries += [Entry(**{k: row[k] for k in COLUMNS}) for row in reader]
    ids = [e.id for e in entries]
    if len(set(ids)) != len(ids):
        raise ValueError(f"manifest of seed {seed}: repeated ids")
    return tuple(sorted(entries, key=first_line))  # stable: ties keep the manifest's order
